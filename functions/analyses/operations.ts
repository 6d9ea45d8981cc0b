import type { Operation } from '../registry.js';
import { competitors } from './competitors.js';
import { featureRequests } from './feature-requests.js';
import { talkRatio } from './talk-ratio.js';

/** Every analysis, in the order the OpenAPI document and the MCP `analyze` tool list them. */
export const analysisOperations: readonly Operation[] = [talkRatio, featureRequests, competitors];
