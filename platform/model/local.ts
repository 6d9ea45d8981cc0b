import { ApiError } from '../errors.js';
import type { ModelProvider, ModelRunOptions, ModelTask, StepRequest, StepResult, StepTask } from './port.js';
import { StepResultSchema } from './step-schema.js';

/** Runs each task's own deterministic implementation, validating input and output like a hosted model. */
export class LocalModelProvider implements ModelProvider {
  readonly id = 'local';

  async run<I, O>(task: ModelTask<I, O>, input: I): Promise<O> {
    const parsedInput = task.input.parse(input);
    const output = await task.local(parsedInput);
    const parsed = task.output.safeParse(output);
    if (!parsed.success) {
      throw new ApiError('internal', `Local model task ${task.name} produced output outside its schema.`);
    }
    return parsed.data;
  }

  /** The task's own deterministic policy, its result checked like a hosted model's. */
  async step(task: StepTask, request: StepRequest, options?: ModelRunOptions): Promise<StepResult> {
    const parsed = StepResultSchema.safeParse(await task.local(request, options));
    if (!parsed.success)
      throw new ApiError('internal', `Local model task ${task.name} produced a step outside its schema.`);
    return parsed.data;
  }
}

// The local embedder and the word handling it shares, re-exported where callers have always found them.
export { embedLocally, LocalHashEmbedder } from './local-embedder.js';
export { contentWords, stemWord } from './local-text.js';
