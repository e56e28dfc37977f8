/**
 * The API report: every public name of each package entry point with its declaration, as the
 * compiler emits it (`tsc --emitDeclarationOnly`, comments and `@internal` members stripped).
 * `npm run api:report` rewrites `api/*.api.d.ts`; `test/package/api-report.test.ts` fails when the
 * checked-in report differs, so every change of the public surface shows in review.
 *
 * The TypeScript 7 package has no classic compiler API, so the report follows the emitted
 * declaration files' `export … from` statements itself (they are machine-written and regular).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Package entry points (package.json `exports`) and the declaration file each one maps to. */
export const ENTRY_POINTS = [
  { entry: ".", file: "index.d.ts", report: "index.api.d.ts" },
  { entry: "./protocol", file: "protocol-entry.d.ts", report: "protocol.api.d.ts" },
  { entry: "./testing", file: "testing/index.d.ts", report: "testing.api.d.ts" },
  { entry: "./client", file: "client/index.d.ts", report: "client.api.d.ts" },
  { entry: "./sidecar", file: "sidecar/index.d.ts", report: "sidecar.api.d.ts" },
  { entry: "./cluster", file: "cluster-entry.d.ts", report: "cluster.api.d.ts" },
] as const;

interface Statement {
  text: string;
  /** The name the statement declares, if it declares one. */
  declares?: string;
  exported: boolean;
}

const DECLARATION =
  /^(export )?(?:declare )?(?:abstract )?(?:class|interface|type|function|const|let|var|enum|namespace) ([A-Za-z_$][\w$]*)/;

/** Splits a declaration file into its top-level statements (each starts in column 0). */
function statementsOf(text: string): Statement[] {
  const statements: Statement[] = [];
  let current: string[] = [];
  const flush = () => {
    if (current.length === 0) return;
    const joined = current.join("\n");
    const match = DECLARATION.exec(joined);
    statements.push({
      text: joined,
      ...(match?.[2] !== undefined && { declares: match[2] }),
      exported: match?.[1] !== undefined,
    });
    current = [];
  };
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    if (!/^[\s})\]|&]/.test(line)) flush();
    current.push(line);
  }
  flush();
  return statements;
}

interface ExportClause {
  /** `*`, or the names `exported as` `local` (local === exported unless renamed). */
  names: "*" | { local: string; exported: string }[];
  /** `export * as ns from`. */
  namespace?: string;
  from?: string;
}

/** The `export … ;` and `import … ;` clauses of a statement. */
function clauseOf(statement: string, keyword: "export" | "import"): ExportClause | undefined {
  const flat = statement.replace(/\s+/g, " ").trim();
  if (!flat.startsWith(`${keyword} `)) return undefined;
  const star = new RegExp(`^${keyword} (?:type )?\\* (?:as (\\w+) )?from "([^"]+)";$`).exec(flat);
  if (star) {
    return { names: "*", ...(star[1] && { namespace: star[1] }), from: star[2] as string };
  }
  const list = new RegExp(`^${keyword} (?:type )?\\{([^}]*)\\}(?: from "([^"]+)")?;$`).exec(flat);
  if (!list) return undefined;
  const names = (list[1] as string)
    .split(",")
    .map((part) => part.trim().replace(/^type /, ""))
    .filter((part) => part !== "")
    .map((part) => {
      const [local, exported] = part.split(/ as /);
      return { local: local as string, exported: (exported ?? local) as string };
    });
  return { names, ...(list[2] && { from: list[2] }) };
}

class DeclarationTree {
  readonly #dir: string;
  readonly #files = new Map<string, Statement[]>();

  constructor(dir: string) {
    this.#dir = dir;
  }

  #statements(file: string): Statement[] {
    let statements = this.#files.get(file);
    if (statements === undefined) {
      statements = statementsOf(readFileSync(join(this.#dir, file), "utf8"));
      this.#files.set(file, statements);
    }
    return statements;
  }

  #resolve(from: string, specifier: string): string {
    return join(dirname(from), specifier.replace(/\.js$/, ".d.ts"));
  }

  /** Every name `file` exports, with the file and local name it is declared under. */
  exportsOf(file: string): Map<string, { file: string; name: string }> {
    const result = new Map<string, { file: string; name: string }>();
    for (const statement of this.#statements(file)) {
      if (statement.exported && statement.declares !== undefined) {
        result.set(statement.declares, { file, name: statement.declares });
        continue;
      }
      const clause = clauseOf(statement.text, "export");
      if (!clause) continue;
      if (clause.names === "*") {
        const target = this.#resolve(file, clause.from as string);
        if (clause.namespace !== undefined) {
          result.set(clause.namespace, { file: target, name: "*" });
        } else {
          for (const [name, where] of this.exportsOf(target)) result.set(name, where);
        }
        continue;
      }
      for (const { local, exported } of clause.names) {
        result.set(exported, this.#origin(file, local, clause.from));
      }
    }
    return result;
  }

  /** Where `local` (exported by `file`, maybe from `from`) is declared. */
  #origin(file: string, local: string, from: string | undefined): { file: string; name: string } {
    if (from !== undefined) {
      const target = this.#resolve(file, from);
      return this.exportsOf(target).get(local) ?? { file: target, name: local };
    }
    for (const statement of this.#statements(file)) {
      const clause = clauseOf(statement.text, "import");
      if (clause?.from === undefined || clause.names === "*") continue;
      const imported = clause.names.find((name) => name.exported === local);
      if (imported) return this.#origin(file, imported.local, clause.from);
    }
    return { file, name: local };
  }

  /** The declaration statements of `name` in `file` (several for overloads). */
  declarationOf(where: { file: string; name: string }): string[] {
    return this.#statements(where.file)
      .filter((statement) => statement.declares === where.name)
      .map((statement) => statement.text.replace(/^(export )?(declare )?/, ""));
  }

  report(file: string, prefix = ""): string[] {
    const sections: string[] = [];
    const shownPrivate = new Set<string>();
    const names = [...this.exportsOf(file)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [name, where] of names) {
      if (where.name === "*") {
        sections.push(...this.report(where.file, `${prefix}${name}.`));
        continue;
      }
      const declarations = this.declarationOf(where);
      const renamed = where.name === name ? "" : ` (declared as ${where.name})`;
      const body = declarations.length > 0 ? declarations.join("\n") : "(declaration not found)";
      sections.push(`// ${prefix}${name}${renamed}\n${body}`);
      sections.push(...this.#privateValuesNamedBy(where.file, body, shownPrivate));
    }
    return sections;
  }

  /**
   * The declarations of the values of `file` that its module does not export and `body` names
   * with `typeof`: a public type derived from one (`type DurableEventData = typeof
   * durablePayloads`) shows what it is only there, the emitter having written that value's
   * type out in full.
   */
  #privateValuesNamedBy(file: string, body: string, shown: Set<string>): string[] {
    const exported = this.exportsOf(file);
    const sections: string[] = [];
    for (const [, name] of body.matchAll(/\btypeof ([A-Za-z_$][\w$]*)/g)) {
      const key = `${file}#${name}`;
      if (name === undefined || exported.has(name) || shown.has(key)) continue;
      const declarations = this.declarationOf({ file, name }).filter((text) =>
        /^(?:const|let|var) /.test(text),
      );
      if (declarations.length === 0) continue;
      shown.add(key);
      sections.push(
        `// ${name} (not exported: named by the type above)\n${declarations.join("\n")}`,
      );
    }
    return sections;
  }
}

/** Writes the reports of every entry point into `outDir`; returns their paths. */
export function writeApiReport(outDir: string): string[] {
  const dts = mkdtempSync(join(tmpdir(), "ocb-api-"));
  try {
    const tsc = join(ROOT, "node_modules", ".bin", "tsc");
    execFileSync(
      tsc,
      [
        "-p",
        join(ROOT, "tsconfig.build.json"),
        "--emitDeclarationOnly",
        "--removeComments",
        "--stripInternal",
        "--declarationMap",
        "false",
        "--sourceMap",
        "false",
        "--outDir",
        dts,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    const tree = new DeclarationTree(dts);
    mkdirSync(outDir, { recursive: true });
    return ENTRY_POINTS.map(({ entry, file, report }) => {
      const header =
        `// The public API of opencode-bridge${entry === "." ? "" : entry.slice(1)}` +
        ` (generated by \`npm run api:report\`: do not edit).`;
      const path = join(outDir, report);
      writeFileSync(path, `${header}\n\n${tree.report(file).join("\n\n")}\n`);
      return path;
    });
  } finally {
    rmSync(dts, { recursive: true, force: true });
  }
}

export const API_REPORT_DIR = join(ROOT, "api");

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const path of writeApiReport(API_REPORT_DIR)) process.stdout.write(`wrote ${path}\n`);
}
