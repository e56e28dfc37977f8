/**
 * The layer check over the real import graph: which layer each module is in (by the declared
 * order of test/layer-order.ts) and every import that points up that order or closes a loop
 * between layers.
 */
import { relative, sep } from "node:path";
import { importsOf, modulesUnder, resolveImport } from "./import-graph.js";

/** One layer: the folders (and single files) that make it, what it is for. */
export interface Layer {
  name: string;
  /** Paths from the repository root: folders, or single files. */
  paths: readonly string[];
  what: string;
}

/** An import up the order that is known and temporary: named, with why it is still there. */
export interface LayerException {
  from: string;
  to: string;
  why: string;
}

/** One import that breaks the order: the importing file, the imported file, the rule. */
export interface LayerViolation {
  importer: string;
  imported: string;
  line: number;
  rule: string;
}

const TESTS_LAYER = "tests";

/** The layer of a module (a path from the root), or undefined when none is declared for it. */
export function layerOf(layers: readonly Layer[], path: string): Layer | undefined {
  if (path.endsWith(".test.ts")) return layers.find((layer) => layer.name === TESTS_LAYER);
  let best: { layer: Layer; length: number } | undefined;
  for (const layer of layers) {
    for (const declared of layer.paths) {
      const names = path === declared || path.startsWith(`${declared}/`);
      if (names && declared.length > (best?.length ?? -1)) {
        best = { layer, length: declared.length };
      }
    }
  }
  return best?.layer;
}

/** An edge between two layers, for the loop check. */
interface LayerEdge {
  importer: string;
  imported: string;
  line: number;
}

/**
 * Every violation of the order among `files` (absolute paths under `root`): a module of no
 * declared layer, an import up the order that is not a named exception (and the loop it closes,
 * if any), and an exception that no import needs any more.
 */
export function layerViolations(
  root: string,
  files: readonly string[],
  layers: readonly Layer[],
  exceptions: readonly LayerException[],
): LayerViolation[] {
  const rank = new Map(layers.map((layer, index) => [layer.name, index]));
  const violations: LayerViolation[] = [];
  const usedExceptions = new Set<LayerException>();
  const between = new Map<string, Map<string, LayerEdge>>();
  const upward: (LayerEdge & { from: string; to: string })[] = [];
  const pathOf = (file: string): string => relative(root, file).split(sep).join("/");
  for (const file of files) {
    const importer = pathOf(file);
    const from = layerOf(layers, importer);
    if (from === undefined) {
      violations.push({ importer, imported: "", line: 0, rule: "is in no declared layer" });
      continue;
    }
    for (const edge of importsOf(file)) {
      const target = resolveImport(file, edge);
      if (target === undefined) continue;
      const imported = pathOf(target);
      const to = layerOf(layers, imported);
      const at = { importer, imported, line: edge.line };
      if (to === undefined) {
        violations.push({ ...at, rule: "imports a module of no declared layer" });
        continue;
      }
      if (to === from) continue;
      const targets = between.get(from.name) ?? new Map<string, LayerEdge>();
      between.set(from.name, targets);
      if (!targets.has(to.name)) targets.set(to.name, at);
      if ((rank.get(to.name) as number) > (rank.get(from.name) as number)) continue;
      const exception = exceptions.find((one) => one.from === from.name && one.to === to.name);
      if (exception !== undefined) {
        usedExceptions.add(exception);
        continue;
      }
      upward.push({ ...at, from: from.name, to: to.name });
    }
  }
  // Every loop between layers takes at least one import up the order: naming each upward
  // import, and the way back down when it closes a loop, covers both rules.
  for (const { from, to, ...at } of upward) {
    const back = closesLoop(between, from, to);
    const loop =
      back === undefined
        ? ""
        : `, closing a loop (${back.importer}:${back.line} imports ${back.imported})`;
    violations.push({
      ...at,
      rule: `layer ${from} imports layer ${to}, which is above it in test/layer-order.ts${loop}`,
    });
  }
  for (const exception of exceptions) {
    if (usedExceptions.has(exception)) continue;
    violations.push({
      importer: "test/layer-order.ts",
      imported: "",
      line: 0,
      rule: `the exception ${exception.from} -> ${exception.to} is needed by no import any more: delete it`,
    });
  }
  return violations;
}

/** Whether `to` reaches `from` through the imports between layers: an edge from→to closes a loop. */
function closesLoop(
  between: Map<string, Map<string, LayerEdge>>,
  from: string,
  to: string,
): LayerEdge | undefined {
  const seen = new Set<string>();
  const queue = [to];
  for (let layer = queue.shift(); layer !== undefined; layer = queue.shift()) {
    if (seen.has(layer)) continue;
    seen.add(layer);
    for (const [next, edge] of between.get(layer) ?? []) {
      if (next === from) return edge;
      queue.push(next);
    }
  }
  return undefined;
}

/** The modules the layer check reads: everything under these folders of the repository. */
export function modulesOf(root: string, folders: readonly string[]): string[] {
  return folders
    .flatMap((folder) => modulesUnder(`${root}/${folder}`))
    .filter((file) => !file.includes(`${sep}fixtures${sep}`));
}

/** One line per violation, for a failing assertion to print. */
export function describeViolation(violation: LayerViolation): string {
  if (violation.imported === "") return `${violation.importer}: ${violation.rule}`;
  return `${violation.importer}:${violation.line} imports ${violation.imported}: ${violation.rule}`;
}
