import { describe, expect, it } from 'vitest';
import { ANALYSIS_TOOLS, LIBRARY_AGENTS } from '../../functions/agents/library.js';
import { analysisOperations } from '../../functions/analyses/operations.js';

/** Every analysis is a tool of every library agent that reads the data: a new one cannot be left out. */
describe('the analyses in the library agents’ tools', () => {
  it('lists every analysis operation, and each library agent offers them', () => {
    expect([...ANALYSIS_TOOLS].sort()).toEqual(analysisOperations.map((op) => op.id).sort());
    for (const agent of LIBRARY_AGENTS) for (const id of ANALYSIS_TOOLS) expect(agent.tools, agent.slug).toContain(id);
  });
});
