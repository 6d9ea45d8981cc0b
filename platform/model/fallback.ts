import type { ModelProvider, ModelRunOptions, ModelTask } from './port.js';

export type FallbackResult<O> =
  | { output: O; ranBy: string }
  | { output: O; ranBy: 'local'; failure: { model: string; error: string } };

/**
 * Run a task on the configured model; when a hosted model fails (down, timed out, answered outside
 * the task's schema), run the task's own local implementation instead and say so, so a language
 * step degrades rather than failing the request. A failure of the local implementation is a bug
 * and is thrown.
 */
export async function runWithLocalFallback<I, O>(
  model: ModelProvider,
  task: ModelTask<I, O>,
  input: I,
  options?: ModelRunOptions,
): Promise<FallbackResult<O>> {
  try {
    return { output: await model.run(task, input, options), ranBy: model.id };
  } catch (error) {
    if (model.id === 'local') throw error;
    const output = task.output.parse(await task.local(task.input.parse(input)));
    return {
      output,
      ranBy: 'local',
      failure: { model: model.id, error: error instanceof Error ? error.message : String(error) },
    };
  }
}
