// Lets `node -r ./scripts/ts-register.js some.ts` run TypeScript with the project's own compiler,
// without a separate runner package: each .ts file is transpiled to CommonJS as it is required.
// Type checking is `npm run typecheck`'s job; this only strips the types.
const fs = require('node:fs');
const ts = require('typescript');

require.extensions['.ts'] = (module, filename) => {
  const { outputText } = ts.transpileModule(fs.readFileSync(filename, 'utf8'), {
    fileName: filename,
    compilerOptions: {
      module: ts.ModuleKind.Node16,
      target: ts.ScriptTarget.ES2022,
      esModuleInterop: true,
      sourceMap: false,
      inlineSourceMap: true,
    },
  });
  module._compile(outputText, filename);
};
