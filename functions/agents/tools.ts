import { z } from 'zod';
import type { ToolSpec } from '../../platform/model/port.js';
import type { Caller } from '../identity/caller.js';
import { authorizeOperation } from '../invoke.js';
import { inputJsonSchema } from '../input-json-schema.js';
import type { Operation, OperationRegistry } from '../registry.js';
import { AnswerDraftSchema } from './answer.js';
import { findLibraryAgent, LIBRARY_AUTHOR } from './library.js';
import { ASK_USER, AskUserArgsSchema, DELEGATE, DelegateArgsSchema, FINAL_ANSWER, toolNameFor } from './tool-names.js';

/**
 * An agent's tools for one turn (agents.md, "Tools are generated from the operation registry"):
 * every public operation the caller may call now (scopes and role as REST checks them) that the agent
 * offers (a library agent's curated `tools`; a workspace agent offers all), minus the agent's
 * `tool_blocklist`, minus run control; plus `ask_user` when the run may pause, `delegate`
 * when it may start another agent, and `final_answer` always. The blocklist narrows what the model
 * is offered; it is not a security boundary (the caller's own rights are).
 */
export interface Toolbox {
  specs: ToolSpec[];
  /** Tool name → the operation it calls. */
  operations: ReadonlyMap<string, Operation>;
}

export interface ToolboxOptions {
  blocklist: readonly string[];
  /** The operations the agent offers (a library agent's curated toolset); null offers every one. */
  offered: readonly string[] | null;
  /** Offer ask_user: the run may pause with a clarifying question. */
  mayAsk: boolean;
  mayDelegate: boolean;
}

const DESCRIPTION_CHARS = 1_200;

export function buildToolbox(registry: OperationRegistry, caller: Caller, options: ToolboxOptions): Toolbox {
  const blocked = new Set(options.blocklist);
  const offered = options.offered ? new Set(options.offered) : null;
  const operations = new Map<string, Operation>();
  const specs: ToolSpec[] = [];
  for (const op of registry.published()) {
    if (op.agentTool === false || op.streamOnly || blocked.has(op.id) || !mayCall(registry, op, caller)) continue;
    if (offered && !offered.has(op.id)) continue;
    const name = toolNameFor(op.id);
    if (operations.has(name)) throw new Error(`two operations map to the tool name ${name}`);
    operations.set(name, op);
    const { properties, required } = inputJsonSchema(op);
    specs.push({
      name,
      description: [op.summary, op.description].filter(Boolean).join('. ').slice(0, DESCRIPTION_CHARS),
      parameters: { type: 'object', properties, required, additionalProperties: false },
    });
  }
  if (options.mayAsk) {
    specs.push(
      builtin(
        ASK_USER,
        'Ask the person who started the run a clarifying question, only when the answer would change the result (e.g. a name that matches several accounts). The run pauses until they reply.',
        AskUserArgsSchema,
      ),
    );
  }
  if (options.mayDelegate) {
    specs.push(
      builtin(
        DELEGATE,
        "Hand a self-contained sub-task to another agent of the workspace; its cited answer comes back as this tool's result.",
        DelegateArgsSchema,
      ),
    );
  }
  specs.push(
    builtin(
      FINAL_ANSWER,
      'Finish with the answer: markdown text plus content blocks (verbatim quotes with their source turn, tables and metrics with the search.query request their cells came from). Every quote, cell and number is checked against the data before it is shown.',
      // The interpretation is accepted but not offered: it would cost every hosted turn its schema's
      // tokens, and a hosted model's reading is not yet a task of its own.
      AnswerDraftSchema.omit({ interpretation: true }),
    ),
  );
  return { specs, operations };
}

/** A library agent's curated toolset (read from the code library, so it is current); null for a workspace agent. */
export function offeredTools(agent: { id: string; authored_by: string }): readonly string[] | null {
  return agent.authored_by === LIBRARY_AUTHOR ? (findLibraryAgent(agent.id)?.tools ?? null) : null;
}

function mayCall(registry: OperationRegistry, op: Operation, caller: Caller): boolean {
  try {
    authorizeOperation(registry, op, caller);
    return true;
  } catch {
    return false;
  }
}

function builtin(name: string, description: string, schema: z.ZodType): ToolSpec {
  const { $schema: _ignored, ...parameters } = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  return { name, description, parameters };
}
