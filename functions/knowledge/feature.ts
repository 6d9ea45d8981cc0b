import type { FeatureModule } from '../module.js';
import { contextOperations } from './context-operations.js';
import { documentOperations } from './document-operations.js';
import { knowledgeIngestPipeline } from './ingest-pipeline.js';
import { libraryOperations } from './library-operations.js';
import { pinOperations } from './pin-operations.js';

/** Workspace knowledge: uploads, the knowledge bank and its ingest, pins, context entries. */
export const knowledgeModule: FeatureModule = {
  name: 'knowledge',
  operations: [...documentOperations, ...pinOperations, ...contextOperations, ...libraryOperations],
  pipelines: [knowledgeIngestPipeline],
};
