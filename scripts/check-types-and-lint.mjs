// `tsc -p tsconfig.json --noEmit` and `eslint .` in one process, over one TypeScript program:
// the lint's typed rules (parserOptions.project: tsconfig.json, eslint.config.mjs) would build
// and check the same program again, about 25 s of CPU. Prints what the two commands print (the
// compiler's diagnostics as `tsc` prints them to a pipe, then ESLint's stylish report) and exits
// non-zero when either finds a problem. `npm run typecheck` and `npm run lint` stay the
// separate commands.
import { ESLint } from "eslint";
import ts from "typescript";

const configPath = "tsconfig.json";
const formatHost = {
  getCanonicalFileName: (fileName) => fileName,
  getCurrentDirectory: ts.sys.getCurrentDirectory,
  getNewLine: () => ts.sys.newLine,
};

const config = ts.getParsedCommandLineOfConfigFile(
  configPath,
  { noEmit: true },
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      process.stdout.write(ts.formatDiagnostics([diagnostic], formatHost));
      process.exit(2);
    },
  },
);
const program = ts.createProgram({
  rootNames: config.fileNames,
  options: config.options,
  projectReferences: config.projectReferences,
  configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(config),
});
const diagnostics = ts.getPreEmitDiagnostics(program);
if (diagnostics.length > 0) {
  process.stdout.write(ts.formatDiagnostics(diagnostics, formatHost));
  const files = new Set(diagnostics.map((diagnostic) => diagnostic.file?.fileName));
  process.stdout.write(`\nFound ${diagnostics.length} errors in ${files.size} files.\n`);
}

const eslint = new ESLint({
  overrideConfig: { languageOptions: { parserOptions: { programs: [program] } } },
});
const results = await eslint.lintFiles(["."]);
const report = (await eslint.loadFormatter("stylish")).format(results);
if (report !== "") process.stdout.write(`${report}\n`);
const lintFailed = results.some((result) => result.errorCount > 0 || result.fatalErrorCount > 0);

process.exitCode = diagnostics.length > 0 || lintFailed ? 1 : 0;
