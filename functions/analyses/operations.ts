import type { Operation } from '../registry.js';
import { accountHistory } from './account-history.js';
import { championChanges } from './champion-changes.js';
import { competitors } from './competitors.js';
import { featureRequests } from './feature-requests.js';
import { renewalRisk } from './renewal-risk.js';
import { talkRatio } from './talk-ratio.js';

/** Every analysis, in the order the OpenAPI document and the MCP `analyze` tool list them. */
export const analysisOperations: readonly Operation[] = [
  talkRatio,
  featureRequests,
  competitors,
  renewalRisk,
  championChanges,
  accountHistory,
];
