import type { StepResult } from '../../../platform/model/port.js';
import type { Interpretation } from '../understanding/interpretation.js';
import { FINAL_ANSWER } from '../tool-names.js';

/** The final answer of a step carries the interpretation it answered (an additive field of the answer). */
export function withInterpretation(step: StepResult, interpretation: Interpretation): StepResult {
  return {
    ...step,
    tool_calls: step.tool_calls.map((c) =>
      c.name === FINAL_ANSWER ? { ...c, arguments: { ...c.arguments, interpretation } } : c,
    ),
  };
}
