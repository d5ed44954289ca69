/**
 * The container files as the container tests read them, without a Docker daemon: the Dockerfile
 * (parsed by a small parser into its stages, the runtime stage's ENV and exec-form commands) and
 * compose.yaml (parsed as Compose reads it, `<<` merge keys included), with README.md's
 * configuration variables, the secret-name pattern and the service's defaults they are held to.
 * Used by test/operations/container-*.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { parse } from 'yaml';
import { loadConfig, type Config } from '../../src/config.js';

export const ROOT = join(import.meta.dirname, '..', '..');
export const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

// ---------------------------------------------------------------------------------------------
// Dockerfile

interface Instruction {
  keyword: string;
  args: string;
}
interface Stage {
  base: string;
  name: string | undefined;
  instructions: Instruction[];
}

/**
 * Instructions in order (continuation lines joined, comments and parser directives dropped), the
 * ARGs declared before the first FROM, and the stages.
 */
function parseDockerfile(text: string): { globalArgs: Map<string, string>; stages: Stage[] } {
  const instructions: Instruction[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('#') || (line === '' && pending === '')) continue;
    pending += (pending ? ' ' : '') + line.replace(/\\$/, '').trim();
    if (line.endsWith('\\')) continue;
    const m = /^(\S+)\s*(.*)$/.exec(pending)!;
    instructions.push({ keyword: m[1]!.toUpperCase(), args: m[2]! });
    pending = '';
  }
  const globalArgs = new Map<string, string>();
  const stages: Stage[] = [];
  for (const ins of instructions) {
    if (ins.keyword === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(ins.args)!;
      stages.push({ base: m[1]!, name: m[2], instructions: [] });
    } else if (stages.length === 0) {
      expect(ins.keyword, 'only ARG may precede the first FROM').toBe('ARG');
      const [name, value = ''] = ins.args.split('=');
      globalArgs.set(name!, value);
    } else stages.at(-1)!.instructions.push(ins);
  }
  return { globalArgs, stages };
}

/** `ENV A=1 B="x y"` (or the old `ENV A 1`) as pairs. */
export function envPairs(args: string): Array<[string, string]> {
  if (!args.includes('=')) {
    const [name, ...rest] = args.split(/\s+/);
    return [[name!, rest.join(' ')]];
  }
  return [...args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S*)/g)].map((m) => [
    m[1]!,
    m[2]!.replace(/^"(.*)"$/, '$1'),
  ]);
}

export const dockerfile = parseDockerfile(read('Dockerfile'));
export const finalStage = dockerfile.stages.at(-1)!;
export const inFinal = (keyword: string) => finalStage.instructions.filter((i) => i.keyword === keyword);
export const imageEnv = Object.fromEntries(inFinal('ENV').flatMap((i) => envPairs(i.args)));
export const execForm = (keyword: string): string[] => {
  const [ins] = inFinal(keyword);
  expect(ins, keyword).toBeDefined();
  return JSON.parse(ins!.args) as string[];
};

/** Names that hold secrets: none may be given a value (or even declared) in the image. */
export const SECRET_NAME = /KEY|SECRET|TOKEN|PASSWORD|PASSWD|PEPPER|CREDENTIAL/i;

/** README.md's "Configuration" table: the variables its rows start with. */
export function readmeVariables(): Set<string> {
  const text = read('README.md');
  const start = text.indexOf('\n## Configuration');
  const end = text.indexOf('\n## ', start + 1);
  expect(start).toBeGreaterThan(-1);
  return new Set(
    text
      .slice(start, end === -1 ? undefined : end)
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .flatMap((line) => [...line.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!)),
  );
}

/** The defaults the service falls back to without any variable. */
export const defaults: Config = loadConfig({}, { envFile: false, cwd: '/app' });

// ---------------------------------------------------------------------------------------------
// compose.yaml

export interface Service {
  build?: string;
  image?: string;
  profiles?: string[];
  ports?: string[];
  environment?: Record<string, unknown>;
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  entrypoint?: string[];
  networks?: string[];
  restart?: string;
  stop_grace_period?: string;
}
interface ComposeFile {
  name: string;
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
  networks: Record<string, { internal?: boolean }>;
}

const composeText = read('compose.yaml');
// Compose reads `<<` merge keys (YAML 1.1); so does this parse.
export const compose = parse(composeText, { merge: true }) as ComposeFile;
export const services = compose.services;
export const isAlgodesk = (s: Service) => s.image === 'algodesk:local';
export const algodeskServices = Object.entries(services).filter(([, s]) => isAlgodesk(s));
export const scaleInstances = algodeskServices.filter(([, s]) => s.profiles?.includes('scale'));
