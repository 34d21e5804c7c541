// The view library: Preact with htm tagged templates (vendored ES modules in
// ./vendor, no build step).  Components import `html` and the hooks from here.
import { h, render } from "preact";
import htm from "htm";

export { render };
export { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
export const html = htm.bind(h);
