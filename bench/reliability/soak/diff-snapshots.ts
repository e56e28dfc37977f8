/**
 * What a process's heap grew by between two V8 heap snapshots (`heap-snapshots.ts` writes the
 * soak child's): nodes grouped by type and name (an object's constructor, a code object's
 * function, `system / FeedbackVector`…), count and self size in each, sorted by the growth in
 * bytes; then, for the groups that grew most, the retainer path of a few of the objects new
 * in the later snapshot (V8 keeps an object's id from one snapshot to the next in a process).
 *
 *   npx tsx bench/reliability/soak/diff-snapshots.ts before.heapsnapshot after.heapsnapshot \
 *     [rows] [group…]   (groups: parts of their key, `"object: Turn"`, whose paths to print too)
 *   … before after --fields=#turns,resourceTimingBuffer   (what those fields retain, in each)
 */
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

interface RawSnapshot {
  snapshot: {
    meta: {
      node_fields: string[];
      node_types: [string[], ...unknown[]];
      edge_fields: string[];
      edge_types: [string[], ...unknown[]];
    };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

/** One snapshot, indexed: node i's fields at `i * nodeWidth` in `nodes`. */
export interface Heap {
  raw: RawSnapshot;
  nodeWidth: number;
  edgeWidth: number;
  count: number;
  /** Offsets of a node's fields and an edge's. */
  f: { type: number; name: number; id: number; selfSize: number; edgeCount: number };
  e: { type: number; name: number; to: number };
  nodeTypes: string[];
  edgeTypes: string[];
  /** Node i's first edge, in edge records (not array offsets). */
  firstEdge: Uint32Array;
  /** Node i's retainers: `retainerStart[i]` to `retainerStart[i + 1]` in `retainers` (edge indices). */
  retainerStart: Uint32Array;
  retainers: Uint32Array;
  edgeFrom: Uint32Array;
}

export function readHeap(path: string): Heap {
  const raw = JSON.parse(readFileSync(path, "utf8")) as RawSnapshot;
  const meta = raw.snapshot.meta;
  const nodeWidth = meta.node_fields.length;
  const edgeWidth = meta.edge_fields.length;
  const count = raw.nodes.length / nodeWidth;
  const f = {
    type: meta.node_fields.indexOf("type"),
    name: meta.node_fields.indexOf("name"),
    id: meta.node_fields.indexOf("id"),
    selfSize: meta.node_fields.indexOf("self_size"),
    edgeCount: meta.node_fields.indexOf("edge_count"),
  };
  const e = {
    type: meta.edge_fields.indexOf("type"),
    name: meta.edge_fields.indexOf("name_or_index"),
    to: meta.edge_fields.indexOf("to_node"),
  };
  const edgeTotal = raw.edges.length / edgeWidth;
  const firstEdge = new Uint32Array(count + 1);
  const edgeFrom = new Uint32Array(edgeTotal);
  const retainerCount = new Uint32Array(count + 1);
  let edge = 0;
  for (let node = 0; node < count; node++) {
    firstEdge[node] = edge;
    const edges = raw.nodes[node * nodeWidth + f.edgeCount] ?? 0;
    for (let k = 0; k < edges; k++, edge++) {
      edgeFrom[edge] = node;
      const to = (raw.edges[edge * edgeWidth + e.to] ?? 0) / nodeWidth;
      retainerCount[to] = (retainerCount[to] ?? 0) + 1;
    }
  }
  firstEdge[count] = edge;
  const retainerStart = new Uint32Array(count + 1);
  for (let node = 0; node < count; node++) {
    retainerStart[node + 1] = (retainerStart[node] ?? 0) + (retainerCount[node] ?? 0);
  }
  const filled = retainerStart.slice();
  const retainers = new Uint32Array(edgeTotal);
  for (let k = 0; k < edgeTotal; k++) {
    const to = (raw.edges[k * edgeWidth + e.to] ?? 0) / nodeWidth;
    const at = filled[to] ?? 0;
    retainers[at] = k;
    filled[to] = at + 1;
  }
  return {
    raw,
    nodeWidth,
    edgeWidth,
    count,
    f,
    e,
    nodeTypes: meta.node_types[0],
    edgeTypes: meta.edge_types[0],
    firstEdge,
    retainerStart,
    retainers,
    edgeFrom,
  };
}

function field(heap: Heap, node: number, offset: number): number {
  return heap.raw.nodes[node * heap.nodeWidth + offset] ?? 0;
}

export function nodeType(heap: Heap, node: number): string {
  return heap.nodeTypes[field(heap, node, heap.f.type)] ?? "?";
}

export function nodeName(heap: Heap, node: number): string {
  return heap.raw.strings[field(heap, node, heap.f.name)] ?? "?";
}

/**
 * The group a node counts in: type and name, except where the name is a value (numbers:
 * by type alone; strings: by the pattern of their start) or a function's (code, closures).
 */
export function groupOf(heap: Heap, node: number): string {
  const type = nodeType(heap, node);
  const name = nodeName(heap, node);
  if (type === "string" || type === "concatenated string" || type === "sliced string") {
    // Ids and counters collapse into one pattern: `ses_…`, `turn #`.
    const pattern = name.replace(/[0-9a-z]*[0-9][0-9a-z]*/gi, (word) =>
      word.length >= 6 ? "…" : "#",
    );
    return `${type}: ${JSON.stringify(pattern.slice(0, 24))}`;
  }
  if (type === "number" || type === "bigint") return type;
  // A closure's or a code object's name is its function's: V8's own kinds read `system / …`.
  if ((type === "code" || type === "closure") && !/^(system \/|\()/.test(name)) {
    return `${type}: (a function's)`;
  }
  if (name.startsWith("(code for ")) return `${type}: (code for …)`;
  return `${type}: ${name.slice(0, 80)}`;
}

interface Group {
  count: number;
  bytes: number;
  /** Nodes of the later snapshot whose id the earlier one did not have. */
  fresh: number[];
}

function groups(heap: Heap, known?: Set<number>): Map<string, Group> {
  const byGroup = new Map<string, Group>();
  for (let node = 0; node < heap.count; node++) {
    const key = groupOf(heap, node);
    let group = byGroup.get(key);
    if (group === undefined) {
      group = { count: 0, bytes: 0, fresh: [] };
      byGroup.set(key, group);
    }
    group.count++;
    group.bytes += field(heap, node, heap.f.selfSize);
    if (known !== undefined && !known.has(field(heap, node, heap.f.id))) group.fresh.push(node);
  }
  return byGroup;
}

/** A node's retainer path towards the roots: the first strong retainer not yet seen, step by step. */
export function retainerPath(heap: Heap, start: number, depth = 12): string[] {
  const path: string[] = [];
  const seen = new Set<number>([start]);
  let node = start;
  for (let step = 0; step < depth; step++) {
    let next: { from: number; label: string } | undefined;
    const from = heap.retainerStart[node] ?? 0;
    const to = heap.retainerStart[node + 1] ?? 0;
    for (let k = from; k < to && next === undefined; k++) {
      const edge = heap.retainers[k] ?? 0;
      const type = heap.edgeTypes[heap.raw.edges[edge * heap.edgeWidth + heap.e.type] ?? 0] ?? "?";
      if (type === "weak") continue;
      const retainer = heap.edgeFrom[edge] ?? 0;
      if (seen.has(retainer)) continue;
      const nameOrIndex = heap.raw.edges[edge * heap.edgeWidth + heap.e.name] ?? 0;
      const edgeName =
        type === "element" || type === "hidden"
          ? `[${nameOrIndex}]`
          : (heap.raw.strings[nameOrIndex] ?? "?");
      next = { from: retainer, label: `${edgeName} (${type}) of ${groupOf(heap, retainer)}` };
    }
    if (next === undefined) break;
    path.push(next.label);
    seen.add(next.from);
    node = next.from;
    const type = nodeType(heap, node);
    if (type === "synthetic") break;
  }
  return path;
}

/**
 * Retained sizes (a node's own size and that of every node only it keeps alive), by the
 * dominator tree from the snapshot's root over its strong edges (Cooper, Harvey and Kennedy's
 * iterative algorithm).
 */
export function retainedSizes(heap: Heap): Float64Array {
  const { count } = heap;
  const isStrong = (edge: number): boolean =>
    heap.edgeTypes[heap.raw.edges[edge * heap.edgeWidth + heap.e.type] ?? 0] !== "weak";
  const target = (edge: number): number =>
    (heap.raw.edges[edge * heap.edgeWidth + heap.e.to] ?? 0) / heap.nodeWidth;
  // Postorder from the root, iteratively.
  const order = new Int32Array(count).fill(-1);
  const postorder: number[] = [];
  const stack: number[] = [0];
  const nextEdge = new Uint32Array(count);
  const visited = new Uint8Array(count);
  visited[0] = 1;
  for (let node = 0; node < count; node++) nextEdge[node] = heap.firstEdge[node] ?? 0;
  while (stack.length > 0) {
    const node = stack[stack.length - 1] ?? 0;
    const end = heap.firstEdge[node + 1] ?? 0;
    let pushed = false;
    while ((nextEdge[node] ?? 0) < end) {
      const edge = nextEdge[node] ?? 0;
      nextEdge[node] = edge + 1;
      const to = target(edge);
      if (!isStrong(edge) || visited[to] === 1) continue;
      visited[to] = 1;
      stack.push(to);
      pushed = true;
      break;
    }
    if (!pushed) {
      stack.pop();
      order[node] = postorder.length;
      postorder.push(node);
    }
  }
  const idom = new Int32Array(count).fill(-1);
  idom[0] = 0;
  const intersect = (a: number, b: number): number => {
    let x = a;
    let y = b;
    while (x !== y) {
      while ((order[x] ?? 0) < (order[y] ?? 0)) x = idom[x] ?? 0;
      while ((order[y] ?? 0) < (order[x] ?? 0)) y = idom[y] ?? 0;
    }
    return x;
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (let i = postorder.length - 2; i >= 0; i--) {
      const node = postorder[i] ?? 0;
      let dominator = -1;
      const from = heap.retainerStart[node] ?? 0;
      const to = heap.retainerStart[node + 1] ?? 0;
      for (let k = from; k < to; k++) {
        const edge = heap.retainers[k] ?? 0;
        if (!isStrong(edge)) continue;
        const retainer = heap.edgeFrom[edge] ?? 0;
        if (visited[retainer] !== 1 || (idom[retainer] ?? -1) === -1) continue;
        dominator = dominator === -1 ? retainer : intersect(retainer, dominator);
      }
      if (dominator !== -1 && idom[node] !== dominator) {
        idom[node] = dominator;
        changed = true;
      }
    }
  }
  const retained = new Float64Array(count);
  for (let node = 0; node < count; node++) retained[node] = field(heap, node, heap.f.selfSize);
  for (const node of postorder) {
    if (node === 0) continue;
    const dominator = idom[node] ?? -1;
    if (dominator >= 0) retained[dominator] = (retained[dominator] ?? 0) + (retained[node] ?? 0);
  }
  return retained;
}

/** The retained size of what each named field holds, summed over every object with that field. */
function fieldRetained(
  heap: Heap,
  fields: readonly string[],
): Map<string, { count: number; bytes: number }> {
  const retained = retainedSizes(heap);
  const sums = new Map<string, { count: number; bytes: number }>();
  const edgeTotal = heap.edgeFrom.length;
  for (let edge = 0; edge < edgeTotal; edge++) {
    const type = heap.edgeTypes[heap.raw.edges[edge * heap.edgeWidth + heap.e.type] ?? 0];
    if (type !== "property" && type !== "context" && type !== "internal") continue;
    const name = heap.raw.strings[heap.raw.edges[edge * heap.edgeWidth + heap.e.name] ?? 0] ?? "";
    if (!fields.includes(name)) continue;
    const to = (heap.raw.edges[edge * heap.edgeWidth + heap.e.to] ?? 0) / heap.nodeWidth;
    const sum = sums.get(name) ?? { count: 0, bytes: 0 };
    sum.count++;
    sum.bytes += retained[to] ?? 0;
    sums.set(name, sum);
  }
  return sums;
}

/**
 * V8's compiled code (functions' machine code and bytecode and their tables: what
 * `getHeapCodeStatistics` counts, near enough), V8's other metadata (feedback vectors,
 * dependent-code lists, object shapes: counted in no code figure), native memory held by
 * heap objects (off V8's heap), or the program's objects.
 */
export function kindOf(group: string): string {
  if (group.startsWith("code: ") && !group.startsWith("code: system / ")) return "V8 code";
  if (group === "object: system / Context") return "program";
  // ArrayBuffers' backing stores: the program's, and outside V8's heap (not in `heapUsed`).
  if (group.startsWith("native: ")) return "native";
  if (group.includes(": system / ") || group.startsWith("object shape: ")) return "V8 metadata";
  if (group.startsWith("hidden: ")) return "V8 metadata";
  return "program";
}

function kib(bytes: number): string {
  return (bytes / 1024).toFixed(1);
}

function main(): void {
  const [beforePath, afterPath, rowsArg] = process.argv.slice(2);
  if (beforePath === undefined || afterPath === undefined) {
    throw new Error("usage: diff-snapshots.ts before.heapsnapshot after.heapsnapshot [rows]");
  }
  const rows = Number(rowsArg ?? 30);
  const fieldsArg = process.argv.find((arg) => arg.startsWith("--fields="));
  if (fieldsArg !== undefined) {
    // What named fields (`#turns`, `resourceTimingBuffer`) keep alive, in each snapshot.
    const fields = fieldsArg.slice("--fields=".length).split(",");
    for (const path of [beforePath, afterPath]) {
      const sums = fieldRetained(readHeap(path), fields);
      console.log(path);
      for (const name of fields) {
        const sum = sums.get(name) ?? { count: 0, bytes: 0 };
        console.log(`  ${name}: ${sum.count} objects' fields retain ${kib(sum.bytes)} KiB`);
      }
    }
    return;
  }
  // Further arguments: groups (a part of their key) whose new objects' paths to print as well.
  const asked = process.argv.slice(5);
  const before = readHeap(beforePath);
  const beforeGroups = groups(before);
  const known = new Set<number>();
  for (let node = 0; node < before.count; node++) known.add(field(before, node, before.f.id));
  const after = readHeap(afterPath);
  const afterGroups = groups(after, known);

  const total = (heap: Heap): number => {
    let bytes = 0;
    for (let node = 0; node < heap.count; node++) bytes += field(heap, node, heap.f.selfSize);
    return bytes;
  };
  const beforeTotal = total(before);
  const afterTotal = total(after);
  console.log(
    `nodes ${before.count} → ${after.count}; self sizes ${kib(beforeTotal)} → ${kib(afterTotal)} KiB (${afterTotal >= beforeTotal ? "+" : ""}${kib(afterTotal - beforeTotal)})`,
  );

  // By node type first: V8's internals (code, hidden, array, system…) against the program's objects.
  const byType = new Map<
    string,
    { before: number; after: number; beforeCount: number; afterCount: number }
  >();
  const addType = (heap: Heap, which: "before" | "after"): void => {
    for (let node = 0; node < heap.count; node++) {
      const type = nodeType(heap, node);
      const row = byType.get(type) ?? { before: 0, after: 0, beforeCount: 0, afterCount: 0 };
      row[which] += field(heap, node, heap.f.selfSize);
      row[which === "before" ? "beforeCount" : "afterCount"]++;
      byType.set(type, row);
    }
  };
  addType(before, "before");
  addType(after, "after");
  console.log("\nby node type: count before → after (Δ), self size Δ KiB");
  for (const [type, row] of [...byType].sort(
    (a, b) => b[1].after - b[1].before - (a[1].after - a[1].before),
  )) {
    console.log(
      `  ${type.padEnd(22)} ${row.beforeCount} → ${row.afterCount} (${row.afterCount - row.beforeCount >= 0 ? "+" : ""}${row.afterCount - row.beforeCount}), ${row.after - row.before >= 0 ? "+" : ""}${kib(row.after - row.before)} KiB`,
    );
  }

  const byKind = new Map<string, number>();
  for (const key of new Set([...beforeGroups.keys(), ...afterGroups.keys()])) {
    const grown = (afterGroups.get(key)?.bytes ?? 0) - (beforeGroups.get(key)?.bytes ?? 0);
    byKind.set(kindOf(key), (byKind.get(kindOf(key)) ?? 0) + grown);
  }
  console.log("\nby kind, self size Δ KiB");
  for (const [kind, grown] of byKind)
    console.log(`  ${kind}: ${grown >= 0 ? "+" : ""}${kib(grown)}`);

  const keys = new Set([...beforeGroups.keys(), ...afterGroups.keys()]);
  const diffs = [...keys].map((key) => {
    const b = beforeGroups.get(key) ?? { count: 0, bytes: 0, fresh: [] };
    const a = afterGroups.get(key) ?? { count: 0, bytes: 0, fresh: [] };
    return { key, count: a.count - b.count, bytes: a.bytes - b.bytes, a, b };
  });
  diffs.sort((x, y) => y.bytes - x.bytes);
  console.log(
    `\ntop ${rows} groups by growth: Δbytes, Δcount (before → after), new ids in the later`,
  );
  for (const d of diffs.slice(0, rows)) {
    console.log(
      `  ${d.bytes >= 0 ? "+" : ""}${d.bytes} B  ${d.count >= 0 ? "+" : ""}${d.count}  (${d.b.count} → ${d.a.count})  fresh ${d.a.fresh.length}  ${d.key}`,
    );
  }
  console.log(`\nmost shrunk ${Math.min(10, rows)} groups`);
  for (const d of diffs.slice(-Math.min(10, rows)).reverse()) {
    console.log(`  ${d.bytes} B  ${d.count}  (${d.b.count} → ${d.a.count})  ${d.key}`);
  }
  console.log("\nretainer paths of new objects in the groups that grew most (up to 3 each):");
  const chosen = diffs.filter(
    (d, i) => (i < Math.min(12, rows) && d.bytes > 0) || asked.some((part) => d.key.includes(part)),
  );
  for (const d of chosen) {
    console.log(`  ${d.key}`);
    const fresh = d.a.fresh;
    const picks = [fresh[0], fresh[Math.floor(fresh.length / 2)], fresh.at(-1)];
    for (const node of new Set(picks)) {
      if (node === undefined) continue;
      console.log(
        `    #${field(after, node, after.f.id)} ${JSON.stringify(nodeName(after, node).slice(0, 60))}`,
      );
      for (const step of retainerPath(after, node)) console.log(`      ← ${step}`);
    }
  }
}

// Run as a script; imported (its readers), nothing runs.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href)
  main();
