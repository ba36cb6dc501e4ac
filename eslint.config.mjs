import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    // The templates are users' projects (their own tsconfig, the package from npm): tsconfig.json
    // type-checks them against the sources, and the release check installs and runs them.
    ignores: [
      "dist/**",
      "node_modules/**",
      "coverage/**",
      "templates/**",
      // The generated SDKs (sdk/nodejs is TypeScript), in their generator's style, and the code
      // gen-sdks adds to them.
      "sdk/**",
      "scripts/gen-sdks/sweeper/**",
      "**/*.js",
      "**/*.mjs",
      "**/*.cjs",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      // One program of tsconfig.json (which includes every linted file) rather than the project
      // service's per-file lookup: a quarter less CPU for the whole repository.
      parserOptions: { project: ["./tsconfig.json"], tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true }],
      "@typescript-eslint/no-unnecessary-condition": "off",
      "@typescript-eslint/no-extraneous-class": "off",
      "@typescript-eslint/require-await": "off",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
    },
  },
);
