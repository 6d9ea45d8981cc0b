/**
 * What the tools a hosted model is offered cost in its context, per library agent: the `tools`
 * array the OpenAI-compatible provider sends (the same JSON Workers AI gets), for a caller holding every scope as a workspace admin, beside what a workspace agent with the
 * default blocklist would be offered (every operation). Run by run.ts, or alone:
 *
 *   npx tsx bench/agent-tools.ts
 *
 * Tokens are estimated as characters / 4 of that JSON (no tokenizer package is installed; for
 * English and JSON with GPT-style BPE tokenizers the ratio is near 4). Target: at most 6,000 for
 * the researcher.
 */
import { LIBRARY_AGENTS } from '../functions/agents/library.js';
import { buildToolbox, offeredTools } from '../functions/agents/tools.js';
import type { Caller } from '../functions/identity/caller.js';
import { SCOPES } from '../functions/identity/scopes.js';
import { allOperations } from '../functions/modules.js';
import { OperationRegistry } from '../functions/registry.js';
import { printTable } from './report.js';

/**
 * The researcher's toolset must fit in this many (estimated) tokens. It holds the analyses (functions/
 * analyses/): each is a whole kind of answer a model would otherwise compose from several searches, at
 * about 160 tokens of schema each; the rest of the toolset stays what it was.
 */
export const RESEARCHER_TOOL_TOKEN_TARGET = 7_500;

const owner: Caller = {
  workspaceId: '00000000-0000-0000-0000-000000000000',
  workspaceName: 'bench',
  userId: '00000000-0000-0000-0000-000000000001',
  email: 'owner@example.com',
  role: 'admin',
  scopes: new Set(SCOPES),
  authMethod: 'api_key',
  credentialId: 'bench',
  bundle: null,
};

/** The `tools` JSON a provider is sent, as characters and estimated tokens. */
export function toolSchemaCost(offered: readonly string[] | null, blocklist: readonly string[]) {
  const registry = new OperationRegistry(allOperations);
  const { specs } = buildToolbox(registry, owner, { blocklist, offered, mayAsk: true, mayDelegate: true });
  const wire = JSON.stringify(
    specs.map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters },
    })),
  );
  return { tools: specs.length, chars: wire.length, tokens: Math.ceil(wire.length / 4) };
}

export function benchAgentTools(): Record<string, string | number>[] {
  const rows: Record<string, string | number>[] = LIBRARY_AGENTS.map((agent) => {
    const cost = toolSchemaCost(offeredTools({ id: agent.id, authored_by: 'amdahl' }), agent.tool_blocklist);
    return {
      agent: agent.slug,
      'tools offered': cost.tools,
      'schema chars': cost.chars,
      'est. tokens (chars/4)': cost.tokens,
    };
  });
  const all = toolSchemaCost(null, LIBRARY_AGENTS[0]!.tool_blocklist);
  rows.push({
    agent: '(every operation, no curation)',
    'tools offered': all.tools,
    'schema chars': all.chars,
    'est. tokens (chars/4)': all.tokens,
  });
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = benchAgentTools();
  printTable('Tool schemas offered to a hosted model, per agent (admin with every scope)', rows);
  const researcher = rows.find((r) => r.agent === 'researcher')!;
  process.stdout.write(
    `\nresearcher: ${researcher['est. tokens (chars/4)']} est. tokens, target at most ${RESEARCHER_TOOL_TOKEN_TARGET}\n`,
  );
}
