/**
 * The `tsconfig.json` of a generated app: strict, Node ESM, type-checks the
 * function files only (the server runs them without a build step).
 */
export function createAppTsconfig(functionsDir: string): Record<string, unknown> {
  return {
    compilerOptions: {
      target: "ES2023",
      lib: ["ES2023"],
      module: "NodeNext",
      moduleResolution: "NodeNext",
      strict: true,
      noUncheckedIndexedAccess: true,
      verbatimModuleSyntax: true,
      isolatedModules: true,
      skipLibCheck: true,
      noEmit: true,
      types: ["node"],
    },
    include: [functionsDir],
  };
}

/**
 * The `.gitignore` of a generated app. `.svc/` holds the dev database and the
 * dev admin token, which must never be committed.
 */
export const APP_GITIGNORE = "node_modules/\n.svc/\n";
