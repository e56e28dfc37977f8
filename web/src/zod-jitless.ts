/**
 * Zod without its JIT, before any schema exists: the typed client checks every answer with
 * zod, whose object schemas otherwise probe `new Function` once — which the sidecar's CSP
 * (no `unsafe-eval`) reports as a violation even though zod catches the refusal. Imported
 * first by main.tsx, so it runs before the client's schemas are built.
 */
import { z } from "zod";

z.config({ jitless: true });
