// @ts-check
// The view library: Preact with htm tagged templates (vendored ES modules in
// ./vendor, no build step; imported by relative path, so no inline import map is
// needed and the Content-Security-Policy can forbid inline scripts).  Components import `html` and the hooks from here.
import { h, render } from "./vendor/preact.module.js";
import htm from "./vendor/htm.module.js";

export { render };
export { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "./vendor/hooks.module.js";
export const html = htm.bind(h);
