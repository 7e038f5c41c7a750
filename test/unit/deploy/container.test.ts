/**
 * The deployable image and the compose files, checked without a Docker engine (there is none on the machine this
 * project is developed on; .ci/run also builds the image and runs `docker compose config` where one exists):
 * the Dockerfile through dockerfile-utils' linter (the one behind VS Code's Dockerfile support) and the shape it
 * must keep; the compose files parsed as YAML and checked against a strict schema of the part of the Compose
 * specification they use (a misspelt key fails), plus what `docker compose config` would refuse (a dependency, a
 * network or a volume that does not exist, a health condition on a service without a healthcheck) and what this
 * project wants of them (current Temporal images, no host folder mounted into a container).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { validate, ValidationSeverity } from 'dockerfile-utils';
import { parse } from 'yaml';
import { z } from 'zod';
import { PLANNER_SEARCH_ATTRIBUTES } from '../../../src/api/search-attributes';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');

  test('lints clean (dockerfile-utils: no error, no warning)', () => {
    const problems = validate(dockerfile).filter(
      (d) => d.severity === ValidationSeverity.ERROR || d.severity === ValidationSeverity.WARNING,
    );
    expect(problems.map((p) => `line ${p.range.start.line + 1}: ${p.message}`)).toEqual([]);
    expect(validate('FROM node:20\nCOPYY a b\n')).not.toEqual([]); // the linter does find problems
  });

  test('installs the packed package into an application folder, as a user, from a pinned base image; copies nothing it lacks', () => {
    const lines = dockerfile.split('\n').filter((l) => l.trim() && !l.trimStart().startsWith('#'));
    const froms = lines.filter((l) => l.startsWith('FROM '));
    expect(froms).toHaveLength(2);
    for (const from of froms) expect(from).toMatch(/^FROM node:\$\{NODE_VERSION\}-bookworm-slim\b/);
    expect(dockerfile).toMatch(/^ARG NODE_VERSION=20$/m);
    expect(dockerfile).toContain('npm pack');
    expect(dockerfile).toMatch(/npm install \/tmp\/durable-planner\.tgz --omit=dev/);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(
      /^ENTRYPOINT \["node_modules\/\.bin\/planner"\]$/m, // the bin itself: its shebang holds the Node options
    );
    // Every COPY from the build context names something the repository has; none copies node_modules.
    const sources = lines
      .filter((l) => l.startsWith('COPY ') && !l.includes('--from='))
      .flatMap((l) =>
        l
          .replace(/^COPY\s+/, '')
          .split(/\s+/)
          .slice(0, -1),
      );
    expect(sources.length).toBeGreaterThan(4);
    for (const source of sources)
      expect({ source, exists: existsSync(path.join(ROOT, source)) }).toEqual({ source, exists: true });
    expect(sources.filter((s) => s.includes('node_modules'))).toEqual([]);
    // The build context leaves out the host's node_modules (per-platform native binaries) and local state.
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim());
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', '.temporal', '.planner', 'dist']));
    // The files `npm pack` needs (package.json "files", prepack's tsconfig) are all copied.
    const pkg = JSON.parse(read('package.json')) as { files: string[] };
    for (const file of [...pkg.files.filter((f) => f !== 'dist'), 'tsconfig.build.json', 'package-lock.json'])
      expect(sources).toContain(file);
  });
});

// The part of the Compose specification (compose-spec.io) these files use; strict, so an unknown key is refused.
const Command = z.union([z.string(), z.array(z.string())]);
const Scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const Environment = z.union([z.record(z.string(), Scalar), z.array(z.string())]);
const DependsOn = z.union([
  z.array(z.string()),
  z.record(
    z.string(),
    z.object({ condition: z.enum(['service_started', 'service_healthy', 'service_completed_successfully']) }).strict(),
  ),
]);
const Healthcheck = z
  .object({
    test: z.union([z.string(), z.array(z.string()).min(2)]),
    interval: z.string().regex(/^\d+(ms|s|m|h)$/),
    timeout: z.string().regex(/^\d+(ms|s|m|h)$/),
    start_period: z
      .string()
      .regex(/^\d+(ms|s|m|h)$/)
      .optional(),
    retries: z.number().int().positive(),
  })
  .strict();
const ServiceSchema = z
  .object({
    image: z.string().min(1),
    build: z
      .object({ context: z.string(), dockerfile: z.string().optional(), args: z.record(z.string(), Scalar).optional() })
      .strict()
      .optional(),
    init: z.boolean().optional(),
    command: Command.optional(),
    entrypoint: Command.optional(),
    environment: Environment.optional(),
    depends_on: DependsOn.optional(),
    healthcheck: Healthcheck.optional(),
    ports: z.array(z.string().regex(/^\d+:\d+$/)).optional(),
    volumes: z.array(z.string()).optional(),
    networks: z.array(z.string()).optional(),
    restart: z.enum(['no', 'always', 'on-failure', 'unless-stopped']).optional(),
    profiles: z.array(z.string()).optional(),
    stdin_open: z.boolean().optional(),
    tty: z.boolean().optional(),
    working_dir: z.string().optional(),
    deploy: z.object({ replicas: z.number().int().positive() }).strict().optional(),
  })
  .strict();
const ComposeSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/),
    include: z.array(z.string()).optional(),
    services: z.record(z.string(), ServiceSchema),
    volumes: z.record(z.string(), z.null()).optional(),
    networks: z.record(z.string(), z.object({ name: z.string() }).strict()).optional(),
  })
  .catchall(z.unknown()) // x-… extension fields (anchors), checked below
  .superRefine((value, ctx) => {
    for (const key of Object.keys(value)) {
      if (!['name', 'include', 'services', 'volumes', 'networks'].includes(key) && !key.startsWith('x-'))
        ctx.addIssue({ code: 'custom', message: `unknown top-level key ${key}` });
    }
  });
type Compose = z.infer<typeof ComposeSchema>;

/** A compose file as `docker compose` reads it: YAML with merge keys, variables interpolated with their defaults. */
function loadCompose(file: string): Compose {
  const text = read(file);
  // Every variable has a default, so the files work without an .env file; `$$` is a literal `$`.
  const variables = [...text.replace(/\$\$/g, '').matchAll(/\$\{([^}]*)\}/g)].map((m) => m[1]!);
  for (const variable of variables)
    expect({ file, variable }).toEqual({ file, variable: expect.stringMatching(/^[A-Z_]+:-[^}]+$/) });
  const interpolated = text.replace(/\$\{([A-Z_]+):-([^}]+)\}/g, (_, _name, fallback: string) => fallback);
  const parsed = ComposeSchema.safeParse(parse(interpolated, { merge: true }));
  if (!parsed.success) throw new Error(`${file}: ${JSON.stringify(parsed.error.issues, null, 2)}`);
  return parsed.data;
}

describe('compose files', () => {
  const temporal = loadCompose('docker-compose.temporal.yml');
  const planner = loadCompose('docker-compose.yml');

  test('follow the schema, and docker-compose.yml includes the Temporal stack', () => {
    expect(planner.include).toEqual(['docker-compose.temporal.yml']);
    for (const file of planner.include!) expect(existsSync(path.join(ROOT, file))).toBe(true);
  });

  test('every dependency, network and volume exists; health and completion conditions fit their targets', () => {
    const services = { ...temporal.services, ...planner.services };
    const networks = new Set([...Object.keys(temporal.networks ?? {}), ...Object.keys(planner.networks ?? {})]);
    const volumes = new Set([...Object.keys(temporal.volumes ?? {}), ...Object.keys(planner.volumes ?? {})]);
    for (const [name, service] of Object.entries(services)) {
      const deps = Array.isArray(service.depends_on)
        ? Object.fromEntries(service.depends_on.map((d) => [d, { condition: 'service_started' }]))
        : (service.depends_on ?? {});
      for (const [dep, { condition }] of Object.entries(deps)) {
        expect({ name, dep, exists: dep in services }).toEqual({ name, dep, exists: true });
        if (condition === 'service_healthy')
          expect({ name, dep, healthcheck: services[dep]!.healthcheck !== undefined }).toEqual({
            name,
            dep,
            healthcheck: true,
          });
        if (condition === 'service_completed_successfully')
          expect({ name, dep, restart: services[dep]!.restart }).toEqual({ name, dep, restart: 'no' });
      }
      for (const network of service.networks ?? [])
        expect({ name, network, declared: networks.has(network) }).toEqual({ name, network, declared: true });
      for (const volume of service.volumes ?? []) {
        // Named volumes only: no folder of the host (its node_modules least of all) is mounted into a container.
        const source = volume.split(':')[0]!;
        expect({ name, volume, named: volumes.has(source) }).toEqual({ name, volume, named: true });
      }
    }
  });

  test("run Temporal's current images: server and admin-tools of one version, no auto-setup", () => {
    const images = Object.values({ ...temporal.services, ...planner.services }).map((s) => s.image);
    expect(images.filter((i) => i.includes('auto-setup'))).toEqual([]);
    const version = (repo: string) =>
      new Set(images.filter((i) => i.startsWith(`${repo}:`)).map((i) => i.split(':')[1]));
    expect([...version('temporalio/server')]).toHaveLength(1);
    expect(version('temporalio/admin-tools')).toEqual(version('temporalio/server'));
    expect([...version('temporalio/server')][0]).toMatch(/^1\.(29|[3-9]\d)\.\d+$/);
  });

  test('the schema one-shot migrates both databases before the server starts, and the namespace one-shot registers the search attributes the planner publishes', () => {
    const schema = [temporal.services['temporal-schema']!.command].flat().join('\n');
    expect(schema).toContain('/etc/temporal/schema/postgresql/v12/temporal/versioned');
    expect(schema).toContain('/etc/temporal/schema/postgresql/v12/visibility/versioned');
    expect(temporal.services.temporal!.depends_on).toEqual({
      'temporal-schema': { condition: 'service_completed_successfully' },
    });
    const namespace = [temporal.services['temporal-namespace']!.command].flat().join('\n');
    expect(namespace).toContain('namespace create --namespace default');
    const registered = [...namespace.matchAll(/--name (\w+) --type (\w+)/g)].map((m) => m[1]);
    expect(registered).toEqual(PLANNER_SEARCH_ATTRIBUTES.map((k) => k.name));
  });

  test("the planner's services are built from the Dockerfile, with no mount of the checkout", () => {
    for (const name of ['planner-worker', 'planner-cli']) {
      const service = planner.services[name]!;
      expect(service.build).toEqual(expect.objectContaining({ context: '.' }));
      expect(service.volumes ?? []).toEqual([]);
      expect(service.init).toBe(true);
      expect(service.environment).toEqual(
        expect.objectContaining({ DATABASE_URL: expect.stringMatching(/^postgres:\/\//) }),
      );
    }
    expect(planner.services['planner-worker']!.command).toEqual(['worker', '--gc-older-than', '30d']);
    expect(existsSync(path.join(ROOT, 'Dockerfile'))).toBe(true);
  });
});
