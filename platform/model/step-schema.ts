import { z } from 'zod';
import type { StepResult } from './port.js';

/** A step as every provider must hand it back: checked at the port, whoever produced it. */
export const StepResultSchema: z.ZodType<StepResult> = z.object({
  content: z.string().nullable(),
  tool_calls: z.array(
    z.object({ id: z.string().min(1), name: z.string().min(1), arguments: z.record(z.string(), z.unknown()) }),
  ),
  usage: z
    .object({ input_tokens: z.number().int().min(0).nullable(), output_tokens: z.number().int().min(0).nullable() })
    .nullable(),
});

/** Parse a tool call's JSON-string arguments to an object; anything else is the provider's fault. */
export function parseToolArguments(raw: unknown, tool: string): Record<string, unknown> | null {
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) return raw as Record<string, unknown>;
  if (typeof raw !== 'string') return null;
  if (raw.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    void tool;
    return null;
  }
}
