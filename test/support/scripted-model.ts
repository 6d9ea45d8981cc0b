import type { ModelProvider, ModelTask, StepRequest, StepResult, StepTask } from '../../platform/model/port.js';

/**
 * A tool-calling model whose every step a test scripts (a function of the request it receives), so
 * the agent loop can be driven through exact sequences: tool calls, errors, pauses, long runs.
 * Records every request. Zero latency: it also stands in for "the model" in the loop benchmark.
 */
export class ScriptedModel implements ModelProvider {
  readonly id = 'scripted';
  readonly requests: StepRequest[] = [];

  constructor(private script: (request: StepRequest, step: number) => StepResult | Promise<StepResult>) {}

  setScript(script: (request: StepRequest, step: number) => StepResult | Promise<StepResult>): void {
    this.script = script;
  }

  async run<I, O>(task: ModelTask<I, O>, input: I): Promise<O> {
    // Non-agent tasks (search planning, routing) keep their deterministic local implementation.
    return task.output.parse(await task.local(task.input.parse(input)));
  }

  async step(_task: StepTask, request: StepRequest): Promise<StepResult> {
    this.requests.push(structuredClone(request));
    return this.script(request, this.requests.length);
  }
}

/** A step calling one tool. */
export const callTool = (id: string, name: string, args: Record<string, unknown> = {}): StepResult => ({
  content: null,
  tool_calls: [{ id, name, arguments: args }],
  usage: null,
});

/** A step answering with plain text (no blocks). */
export const answerWith = (text: string): StepResult => ({
  content: null,
  tool_calls: [{ id: 'final', name: 'final_answer', arguments: { text, content_blocks: [], follow_ups: [] } }],
  usage: null,
});
