// ESLint for the web client's ES modules and their Node unit tests (`make jslint`).
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["src/svoi_kozyri/web/static/vendor/**", "tests/vendor/**", "node_modules/**", ".venv/**", "build/**"] },
  js.configs.recommended,
  {
    files: ["src/svoi_kozyri/web/static/**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: globals.browser },
    rules: { "no-unused-vars": ["error", { argsIgnorePattern: "^_" }], eqeqeq: ["error", "always"] },
  },
  {
    // the service worker is a classic script with the worker's globals (self, caches, clients)
    files: ["src/svoi_kozyri/web/static/sw.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "script", globals: globals.serviceworker },
  },
  {
    files: ["tests/js/**/*.js", "eslint.config.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: globals.node },
  },
];
