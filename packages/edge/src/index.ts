export { createD1Dialect, EDGE_TABLES_SQL, openD1 } from "./d1/d1-dialect.js";
export { isWriteConflict, WriteConflictError } from "./d1/d1-errors.js";
export type { D1Database, D1PreparedStatement, D1Result } from "./d1/d1-types.js";
