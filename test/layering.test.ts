import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..', 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/**
 * What dependency-cruiser (npm run lint:layers) cannot see, because it is a use and not an import:
 * only the command line reads the process's arguments or decides how it exits.
 */
describe('layering beyond imports', () => {
  it('only src/cli reads process.argv or calls process.exit', () => {
    const offenders = sourceFiles(SRC)
      .filter((file) => !relative(SRC, file).startsWith('cli/'))
      .filter((file) => /process\.(argv|exit\b|exitCode)/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(SRC, file));
    expect(offenders).toEqual([]);
  });
});

describe('what a scan loads', () => {
  it('svc scan and its error handling load no database driver (start-up time of every CI scan)', () => {
    // The built modules the scan command runs through; pg and better-sqlite3 are CommonJS, so anything
    // that pulled them in shows in require's cache.
    const dist = join(import.meta.dirname, '..', 'dist', 'cli');
    const loaded = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { createRequire } from 'node:module';
         await import(${JSON.stringify(join(dist, 'run.js'))});
         await import(${JSON.stringify(join(dist, 'scan-command.js'))});
         console.log(JSON.stringify(Object.keys(createRequire(import.meta.url).cache)));`,
      ],
      { encoding: 'utf8' },
    );
    const drivers = (JSON.parse(loaded) as string[]).filter((file) =>
      /node_modules[\\/](pg|better-sqlite3|ioredis)[\\/]/.test(file),
    );
    expect(drivers).toEqual([]);
  });
});

/**
 * Folders whose modules import each other, directly or round a longer circle: for every folder, its
 * child folders as nodes (a child's subfolders count as the child), an edge where a module of one
 * imports a module of another (type-only imports are erased at build time and do not count), and the
 * strongly connected components of that graph. A folder and its own files above the children are not
 * a node: a parent's barrel or shared types used by its children is layering, not a circle.
 */
function siblingFolderCycles(): { in: string; folders: string[] }[] {
  const depcruise = join(import.meta.dirname, '..', 'node_modules', '.bin', 'depcruise');
  const json = execFileSync(
    depcruise,
    ['src', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'],
    {
      cwd: join(import.meta.dirname, '..'),
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
    },
  );
  type Module = { source: string; dependencies: { resolved: string; dependencyTypes: string[] }[] };
  const modules = (JSON.parse(json) as { modules: Module[] }).modules.filter(
    (m) => m.source.startsWith('src/') && !/\.test\.tsx?$/.test(m.source),
  );
  const folders = new Set<string>();
  for (const m of modules) {
    for (let dir = m.source.slice(0, m.source.lastIndexOf('/')); dir.includes('/'); ) {
      folders.add(dir);
      dir = dir.slice(0, dir.lastIndexOf('/'));
    }
    folders.add('src');
  }
  /** The child folder of `parent` that `file` lies in, or null (outside it, or one of its own files). */
  const childOf = (parent: string, file: string) => {
    if (!file.startsWith(`${parent}/`)) return null;
    const rest = file.slice(parent.length + 1);
    return rest.includes('/') ? rest.slice(0, rest.indexOf('/')) : null;
  };
  const cycles: { in: string; folders: string[] }[] = [];
  for (const parent of [...folders].sort()) {
    const edges = new Map<string, Set<string>>();
    for (const m of modules) {
      const from = childOf(parent, m.source);
      if (from === null) continue;
      for (const d of m.dependencies) {
        if (d.dependencyTypes.every((t) => t.includes('type-only'))) continue;
        const to = childOf(parent, d.resolved);
        if (to === null || to === from) continue;
        if (!edges.has(from)) edges.set(from, new Set());
        edges.get(from)!.add(to);
      }
    }
    // Tarjan's strongly connected components.
    let counter = 0;
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const connect = (v: string) => {
      index.set(v, counter);
      low.set(v, counter++);
      stack.push(v);
      for (const w of edges.get(v) ?? []) {
        if (!index.has(w)) {
          connect(w);
          low.set(v, Math.min(low.get(v)!, low.get(w)!));
        } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
      if (low.get(v) === index.get(v)) {
        const component: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          component.push(w);
        } while (w !== v);
        if (component.length > 1) cycles.push({ in: parent, folders: component.sort() });
      }
    };
    for (const v of edges.keys()) if (!index.has(v)) connect(v);
  }
  return cycles;
}

describe('no import circle between folders', () => {
  it('no folder imports a sibling folder that imports it back (directly or round a circle)', () => {
    // app/ is the one composition root above server/, web/ and mcp/ (issue 33 removed the last circle).
    expect(siblingFolderCycles()).toEqual([]);
  });
});
