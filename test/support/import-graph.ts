/**
 * The repository's import graph, read by a real parser (oxc, through vite's `parseSync`) rather
 * than by patterns: every static import, re-export, dynamic `import()` and type-position
 * `import("…")` of a module, resolved to the file it names. The layer test and the client's
 * isomorphism test both walk it.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, extname, join, resolve } from "node:path";
import { parseSync } from "vite";

/** One import of one module, as written. */
export interface ImportEdge {
  /** The specifier as written: `./x.js`, `zod`, `node:fs`. */
  specifier: string;
  /**
   * Erased from the JavaScript: `import type …`, `export type … from`, or a type-position
   * `import("…")`. (`import { type A } from` is not: under `verbatimModuleSyntax` it stays as
   * `import {} from`, which loads the module.)
   */
  typeOnly: boolean;
  /** The line of the file it is written on, from 1. */
  line: number;
  /**
   * A dynamic `import()` of a computed specifier (`specifier` is then its source text): the
   * graph cannot follow it, so the layer test names each one it allows.
   */
  computed: boolean;
}

interface AstNode {
  type: string;
  start: number;
  [key: string]: unknown;
}

function isNode(value: unknown): value is AstNode {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { type?: unknown }).type === "string"
  );
}

function literalValue(node: unknown): string | undefined {
  if (!isNode(node) || node.type !== "Literal") return undefined;
  const value = (node as { value?: unknown }).value;
  return typeof value === "string" ? value : undefined;
}

/** Every import of a module in `text` (TypeScript, ESM). */
export function importsOfSource(file: string, text: string): ImportEdge[] {
  const parsed = parseSync(file, text, { lang: file.endsWith(".ts") ? "ts" : "js" });
  if (parsed.errors.length > 0) {
    throw new Error(`${file} does not parse: ${parsed.errors[0]?.message ?? ""}`);
  }
  const lineStarts = [0];
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) {
    lineStarts.push(at + 1);
  }
  const lineOf = (offset: number): number => {
    let line = 0;
    while (line + 1 < lineStarts.length && (lineStarts[line + 1] as number) <= offset) line += 1;
    return line + 1;
  };
  const found: ImportEdge[] = [];
  const visit = (node: AstNode): void => {
    const add = (source: unknown, typeOnly: boolean): void => {
      const specifier = literalValue(source);
      const line = lineOf(node.start);
      if (specifier !== undefined) found.push({ specifier, typeOnly, line, computed: false });
    };
    switch (node.type) {
      case "ImportDeclaration":
        add(node.source, node.importKind === "type");
        break;
      case "ExportNamedDeclaration":
      case "ExportAllDeclaration":
        add(node.source, node.exportKind === "type");
        break;
      case "ImportExpression":
        if (literalValue(node.source) === undefined && isNode(node.source)) {
          const { start, end } = node.source as AstNode & { end: number };
          const specifier = text.slice(start, end);
          found.push({ specifier, typeOnly: false, line: lineOf(node.start), computed: true });
        } else {
          add(node.source, false);
        }
        break;
      case "TSImportType":
        add(node.source ?? node.argument, true);
        break;
    }
    for (const value of Object.values(node)) {
      if (Array.isArray(value)) {
        for (const item of value) if (isNode(item)) visit(item);
      } else if (isNode(value)) {
        visit(value);
      }
    }
  };
  visit(parsed.program as unknown as AstNode);
  return found;
}

/** Every import of a module in `file`. */
export function importsOf(file: string): ImportEdge[] {
  return importsOfSource(file, readFileSync(file, "utf8"));
}

/**
 * The file a relative specifier names (sources import `./x.js` for `./x.ts`, NodeNext), or
 * undefined for a package or a `node:` module. Throws for a relative one that names no file.
 */
export function resolveImport(from: string, edge: ImportEdge): string | undefined {
  const { specifier } = edge;
  if (edge.computed || !specifier.startsWith(".")) return undefined;
  const written = resolve(dirname(from), specifier);
  const candidates =
    extname(written) === ".js" ? [written.replace(/\.js$/, ".ts"), written] : [written];
  const file = candidates.find((candidate) => existsSync(candidate));
  if (file === undefined) throw new Error(`${from}: ${specifier} names no file`);
  return file;
}

const SOURCE = /\.(ts|mts|mjs|js)$/;

/** The TypeScript and JavaScript modules under `dir`, recursively (no declaration files). */
export function modulesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => SOURCE.test(name) && !name.endsWith(".d.ts"))
    .filter((name) => !name.split("/").includes("node_modules"))
    .map((name) => join(dir, name));
}
