/**
 * Every ecosystem descriptor is complete and consistent with the others: what a new ecosystem must
 * provide (docs/adding-an-ecosystem.md) is checked here, so a missing piece fails `npm test`.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/config.js';
import { installCommandOf, parseCommandLine } from '../command/parse-command.js';
import { popularIndex } from '../risk/typosquat.js';
import { createRegistries, ECOSYSTEMS, ecosystemById } from './index.js';

describe.each(ECOSYSTEMS.map((e) => [e.id, e] as const))('the %s descriptor', (id, ecosystem) => {
  it('is found by its id and names its registry and its OSV ecosystem', () => {
    expect(ecosystemById(id)).toBe(ecosystem);
    expect(ecosystem.registryName).not.toBe('');
    expect(ecosystem.osv.ecosystem).not.toBe('');
    expect(ecosystem.osv.packageName(' x ')).toBe('x');
  });

  it('has a configured registry URL and a client for its ecosystem', () => {
    const urls: Record<string, string> = loadConfig({}).registries;
    expect(urls[ecosystem.urlKey]).toMatch(/^https:\/\//);
    expect(ecosystem.createRegistry({ baseUrl: 'http://127.0.0.1:9' }).ecosystem).toBe(id);
  });

  it('ships a popularity list whose names keep their normal form', () => {
    const { names } = ecosystem.names.popular;
    expect(names.length).toBeGreaterThanOrEqual(100);
    for (const name of names.slice(0, 50)) {
      const key = ecosystem.names.normalize(name);
      expect(key).not.toBe('');
      expect(ecosystem.names.normalize(key)).toBe(key);
    }
    expect(popularIndex(id).isPopular(names[0]!)).toBe(true);
  });

  it('owns at least one command, each executable its own, each install sub-command read as one', () => {
    expect(ecosystem.commands.length).toBeGreaterThan(0);
    for (const command of ecosystem.commands) {
      expect(command.executables.length, command.tool).toBeGreaterThan(0);
      expect(command.installs.length, command.tool).toBeGreaterThan(0);
      for (const executable of command.executables) {
        expect(installCommandOf(executable), executable).toBe(command);
        for (const sub of command.installs) {
          expect(parseCommandLine(`${executable} ${sub}`).isInstall, `${executable} ${sub}`).toBe(true);
        }
      }
    }
  });

  it('reads its sample command lines, one at least for each of its commands', () => {
    expect(ecosystem.samples.length).toBeGreaterThan(0);
    const exercised = new Set<unknown>();
    for (const sample of ecosystem.samples) {
      const parsed = parseCommandLine(sample.line);
      expect(parsed.isInstall, sample.line).toBe(true);
      expect(parsed.installs, sample.line).toEqual(sample.installs.map((p) => ({ ecosystem: id, ...p })));
      exercised.add(installCommandOf(sample.line.split(' ')[0]!));
    }
    for (const command of ecosystem.commands) expect(exercised.has(command), command.tool).toBe(true);
  });

  it('says how an install names another registry', () => {
    const { options, variables, optionPattern } = ecosystem.otherRegistry;
    expect(options.length + variables.length + (optionPattern ? 1 : 0)).toBeGreaterThan(0);
    for (const option of options) expect(option).toMatch(/^--?[a-z]/);
  });
});

describe('the list of ecosystems', () => {
  it('has distinct ids, OSV names and registry URL keys', () => {
    for (const key of ['id', 'urlKey'] as const) {
      const values = ECOSYSTEMS.map((e) => e[key]);
      expect(new Set(values).size).toBe(values.length);
    }
    const osv = ECOSYSTEMS.map((e) => e.osv.ecosystem);
    expect(new Set(osv).size).toBe(osv.length);
  });

  it('gives each executable to one ecosystem only', () => {
    const executables = ECOSYSTEMS.flatMap((e) => e.commands.flatMap((c) => c.executables));
    expect(new Set(executables).size).toBe(executables.length);
    for (const e of ECOSYSTEMS) {
      for (const c of e.commands) {
        if (c.pattern === undefined) continue;
        const others = ECOSYSTEMS.filter((o) => o !== e).flatMap((o) =>
          o.commands.flatMap((x) => x.executables),
        );
        for (const name of others) expect(c.pattern.test(name), `${c.tool} claims ${name}`).toBe(false);
      }
    }
  });

  it('builds one registry client per ecosystem, in the order of the list', () => {
    const clients = createRegistries(loadConfig({}).registries);
    expect(Object.keys(clients)).toEqual(ECOSYSTEMS.map((e) => e.id));
    expect(() => createRegistries({})).toThrow(/no registry URL configured for npm/);
  });
});
