import { and, eq } from 'drizzle-orm';
import type { Queryable } from '../../platform/db/port.js';
import { ApiError } from '../../platform/errors.js';
import { isUuid } from '../../platform/ids.js';
import { validationError, type FieldProblem } from '../../platform/validation.js';
import { connections } from '../../schema/connections.js';
import { ACTION_NAMES, isActionName } from '../actions/index.js';
import { findAgent } from '../agents/index.js';
import { KINDS, type SourceKind } from './kinds.js';
import { RunConfigSchema, type RunConfigInput } from './schemas.js';

export interface SubscriptionDraft {
  name: string;
  sourceKind: SourceKind;
  prompt: string;
  config: Record<string, unknown>;
  agent: string | null;
  runConfig: Record<string, unknown>;
  enabled: boolean;
}

export interface CheckedSubscription {
  name: string;
  sourceKind: SourceKind;
  prompt: string;
  /** The kind's config with its defaults applied. */
  config: Record<string, unknown>;
  agent: string | null;
  runConfig: RunConfigInput;
  enabled: boolean;
}

const fieldsOf = (error: ApiError): FieldProblem[] => (error.details?.fields as FieldProblem[] | undefined) ?? [];

/**
 * Check a subscription before anything is stored; every problem is collected into one
 * `400 invalid_argument` naming each field: the config against its kind's schema (undeclared keys
 * refused), the calendar connection (a google_calendar connection of this workspace, not
 * disconnected; another workspace's id reads as unknown), the agent pin, the run config's keys and
 * actions.
 */
export async function checkSubscription(
  db: Queryable,
  workspaceId: string,
  draft: SubscriptionDraft,
): Promise<CheckedSubscription> {
  const problems: FieldProblem[] = [];
  const kind = KINDS[draft.sourceKind];
  const config = kind.config.safeParse(draft.config, { reportInput: true });
  if (!config.success) problems.push(...fieldsOf(validationError(kind.config, config.error.issues, 'config')));
  if (config.success && draft.sourceKind === 'calendar.event_upcoming') {
    const connectionId = String(config.data.connection_id);
    const [connection] = isUuid(connectionId)
      ? await db
          .select({ type: connections.connectorType, status: connections.status })
          .from(connections)
          .where(and(eq(connections.workspaceId, workspaceId), eq(connections.id, connectionId)))
      : [];
    if (connection?.type !== 'google_calendar')
      problems.push({
        field: 'config.connection_id',
        problem: `no google_calendar connection ${connectionId} in this workspace (GET /connections lists them)`,
        code: 'unknown_connection',
      });
    else if (connection.status === 'disconnected')
      problems.push({
        field: 'config.connection_id',
        problem: 'this connection is disconnected: reconnect it first',
        code: 'connection_disconnected',
      });
  }

  const runConfig = RunConfigSchema.safeParse(draft.runConfig, { reportInput: true });
  if (!runConfig.success)
    problems.push(...fieldsOf(validationError(RunConfigSchema, runConfig.error.issues, 'run_config')));
  runConfig.data?.actions_allowed?.forEach((name, i) => {
    if (!isActionName(name))
      problems.push({
        field: `run_config.actions_allowed.${i}`,
        problem: `unknown action "${name}"`,
        code: 'invalid_value',
        allowed: ACTION_NAMES,
      });
  });

  let agent: string | null = null;
  if (draft.agent !== null) {
    const found = await findAgent(db, workspaceId, draft.agent);
    if (found) agent = found.view.slug;
    else
      problems.push({
        field: 'agent',
        problem: `no agent "${draft.agent}" in this workspace's roster`,
        code: 'unknown_agent',
      });
  }

  if (problems.length > 0 || !config.success || !runConfig.success) {
    const first = problems[0];
    throw new ApiError(
      'invalid_argument',
      first
        ? `Invalid request: ${first.field}: ${first.problem}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}`
        : 'Invalid request.',
      { fields: problems },
    );
  }
  return {
    name: draft.name,
    sourceKind: draft.sourceKind,
    prompt: draft.prompt,
    config: config.data,
    agent,
    runConfig: runConfig.data,
    enabled: draft.enabled,
  };
}
