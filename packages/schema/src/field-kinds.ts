/** The kinds a field can have. */
export const fieldKinds = [
  "string",
  "int",
  "float",
  "bool",
  "datetime",
  "json",
  "id",
  "enum",
  "file",
] as const;
export type FieldKind = (typeof fieldKinds)[number];
