// What the bench (bench/) uses of the service: one entry, so that a reader sees what the bench leans
// on and the service's modules can move behind it. The bench imports nothing else of src/ (the lint rule
// of eslint.config.mjs), and nothing in src/ imports this.
export { SUGGESTIONS, choiceSource, lookupAsks } from './admin/choices';
export { csvCopy } from './admin/csv-copy';
export { listContext } from './admin/list-context';
export { csvStatements, pageValues, readPage, type ListResource, type PageRunner, type PageStatement } from './admin/list-page';
export { type Position } from './admin/list-pager';
export { DEFAULT_PER_PAGE } from './admin/list-params';
export { adminLists } from './admin/registry';
export { searchStatements } from './admin/rider-page';
export { allOperations, operations } from './api/v2/operations';
export { createApiRouter } from './api/v2/router';
export { answerPieces, bytesQuery, sendJsonText } from './api/v2/send-json';
export { createSupervisor } from './auth/supervisors';
export { createToken, revokeToken } from './auth/tokens';
export { DEFAULT_ATTENTION, loadConfig } from './config';
export { inlineParameters } from './db/copy';
export { freePort, startEmbedded, startEmbeddedStandby, type EmbeddedServer } from './db/embedded';
export { KeptApplier, keptFreshness } from './db/kept-applier';
export { sql, toNative, type NativeQuery } from './db/knex';
export { migrateDatabase } from './db/migrate';
export { createPool, type Pool } from './db/pool';
export { type ParamDef } from './filters/define';
export { links } from './html/links';
export { API_HEADERS, fixedSecurityHeaders } from './http/security-headers';
export { StreamLimit } from './http/stream-limit';
export { projectRoot } from './paths';
export { riderSuggestions } from './queries/rider-equipment';
export { riderRules } from './rules';
export { BATCH_MAX } from './rules/handling';
export { createExpressServer } from './runtime/express-server';
export { tuneV8 } from './runtime/v8';
