import type { Queryable } from '../../platform/db/port.js';
import { ApiError } from '../../platform/errors.js';
import { validationError, type FieldProblem } from '../../platform/validation.js';
import { isActionName, ACTION_NAMES } from '../actions/index.js';
import { findAgent } from '../agents/index.js';
import { checkCron, checkTimezone } from './cron.js';
import { LEGACY_CONFIG_KEYS, RoutineConfigSchema, type RoutineConfigInput } from './schemas.js';

/** A routine as it will be stored: every field checked, agent refs resolved to slugs. */
export interface CheckedRoutine {
  name: string;
  prompt: string;
  cron: string;
  timezone: string;
  agent: string | null;
  config: RoutineConfigInput;
  enabled: boolean;
}

export interface RoutineDraft {
  name: string;
  prompt: string;
  cron: string;
  timezone: string;
  agent: string | null;
  config: Record<string, unknown>;
  enabled: boolean;
}

/**
 * Check a routine before anything is stored; every problem is collected into one
 * `400 invalid_argument` that names each field: the cron (five fields, per cron-parser), the time
 * zone, legacy and unknown config keys, `agent` together with `config.agents`, agent refs that name
 * no agent of the roster, actions outside the catalog.
 */
export async function checkRoutine(db: Queryable, workspaceId: string, draft: RoutineDraft): Promise<CheckedRoutine> {
  const problems: FieldProblem[] = [];
  const tz = checkTimezone(draft.timezone);
  if (tz) problems.push({ field: tz.field, problem: tz.problem, code: 'invalid_value' });
  const cron = tz ? null : checkCron(draft.cron, draft.timezone);
  if (cron) problems.push({ field: cron.field, problem: cron.problem, code: 'invalid_value' });

  for (const key of LEGACY_CONFIG_KEYS) {
    if (key in draft.config)
      problems.push({
        field: `config.${key}`,
        problem: `${key} is a legacy key and is no longer writable`,
        code: 'legacy_field',
      });
  }
  const rest = Object.fromEntries(
    Object.entries(draft.config).filter(([k]) => !(LEGACY_CONFIG_KEYS as readonly string[]).includes(k)),
  );
  const parsed = RoutineConfigSchema.safeParse(rest, { reportInput: true });
  if (!parsed.success) {
    const fields =
      (validationError(RoutineConfigSchema, parsed.error.issues, 'config').details?.fields as
        | FieldProblem[]
        | undefined) ?? [];
    problems.push(...fields);
  }
  const config: RoutineConfigInput = parsed.success ? { ...parsed.data } : {};

  let agent: string | null = null;
  if (draft.agent !== null) {
    if (config.agents !== undefined)
      problems.push({
        field: 'config.agents',
        problem: 'not together with agent (the legacy pin): use one or the other',
        code: 'conflict',
      });
    const found = await findAgent(db, workspaceId, draft.agent);
    if (found) agent = found.view.slug;
    else
      problems.push({
        field: 'agent',
        problem: `no agent "${draft.agent}" in this workspace's roster`,
        code: 'unknown_agent',
      });
  }
  if (typeof config.agents === 'string' && config.agents !== 'all') {
    const found = await findAgent(db, workspaceId, config.agents);
    if (found) config.agents = found.view.slug;
    else
      problems.push({
        field: 'config.agents',
        problem: `no agent "${config.agents}" in this workspace's roster`,
        code: 'unknown_agent',
      });
  } else if (Array.isArray(config.agents)) {
    const slugs: string[] = [];
    for (const [i, ref] of config.agents.entries()) {
      const found = await findAgent(db, workspaceId, ref);
      if (found) slugs.push(found.view.slug);
      else
        problems.push({
          field: `config.agents.${i}`,
          problem: `no agent "${ref}" in this workspace's roster`,
          code: 'unknown_agent',
        });
    }
    config.agents = [...new Set(slugs)];
  }
  config.actions_allowed?.forEach((name, i) => {
    if (!isActionName(name))
      problems.push({
        field: `config.actions_allowed.${i}`,
        problem: `unknown action "${name}"`,
        code: 'invalid_value',
        allowed: ACTION_NAMES,
      });
  });

  if (problems.length > 0) {
    const first = problems[0]!;
    throw new ApiError(
      'invalid_argument',
      `Invalid request: ${first.field}: ${first.problem}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}`,
      { fields: problems },
    );
  }
  return {
    name: draft.name,
    prompt: draft.prompt,
    cron: draft.cron.trim(),
    timezone: draft.timezone,
    agent,
    config,
    enabled: draft.enabled,
  };
}
