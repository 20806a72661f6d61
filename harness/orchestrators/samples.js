// What the orchestrator checks need to know about each sample that its files don't say: which
// kustomizations are meant to be applied, which workload is the app and where its routes, drain
// timeout and worker count are read, which files are copies. Paths are relative to the sample.
export const SAMPLES = {
  'node-replicas': {
    // Applied as they are (every check); other kustomizations are only rendered and validated.
    deployable: ['k8s/base', 'k8s/overlays/nginx-least-conn'],
    library: [],
    app: {
      workload: 'Deployment/node-replicas',
      container: 'app',
      composeService: 'app',
      routes: ['src/app.js'],
      // The drain contract (drain.js): src/shutdown.js serves on for the delay, the timeout bounding both.
      drain: { delay: { env: 'DRAIN_DELAY_MS', unit: 'ms' }, timeout: { env: 'DRAIN_TIMEOUT_MS', unit: 'ms' } },
    },
    copies: {
      'k8s/overlays/nginx-least-conn/nginx/nginx.conf': '../proxy/nginx.conf',
      'k8s/overlays/nginx-least-conn/nginx/templates/default.conf.template': '../proxy/templates/default.conf.template',
      'k8s/overlays/nginx-least-conn/nginx/lb/least_conn.conf': '../proxy/lb/least_conn.conf',
      'k8s/overlays/nginx-least-conn/nginx/lb/round_robin.conf': '../proxy/lb/round_robin.conf',
      'k8s/overlays/nginx-least-conn/nginx/lb/hash.conf': '../proxy/lb/hash.conf',
    },
    swarm: { secrets: [] },
  },
  'node-cluster': {
    deployable: ['k8s/overlays/cluster-in-a-pod', 'k8s/overlays/one-process-per-pod'],
    library: ['k8s/base', 'k8s/secret-placeholders'],
    app: {
      workload: 'Deployment/node-cluster',
      container: 'app',
      composeService: 'app',
      routes: ['src/app.js'],
      // src/supervisor.js SIGKILLs a worker still draining DRAIN_TIMEOUT_MS + 2 s after asking it to stop.
      drain: {
        delay: { env: 'DRAIN_DELAY_MS', unit: 'ms' },
        timeout: { env: 'DRAIN_TIMEOUT_MS', unit: 'ms' },
        marginMs: 2_000,
      },
      // src/cpu-count.js reads WORKERS before looking at the CPU quota; src/primary.js forks that many.
      workers: { env: 'WORKERS', readIn: 'src/cpu-count.js', entry: 'src/primary.js' },
    },
    stateful: ['StatefulSet/mongo'],
    copies: {
      'k8s/base/mongo-init/01-init.js': '../database/mongo/01-init.js',
      'k8s/base/mongo-init/items.json': '../database/mongo/items.json',
    },
    swarm: { secrets: ['mongo_root_password', 'mongo_app_password'] },
  },
  'dotnet-api': {
    deployable: ['k8s/base'],
    library: ['k8s/secret-placeholders'],
    app: {
      workload: 'Deployment/dotnet-api',
      container: 'app',
      composeService: 'app',
      routes: ['src/Api/Program.cs'],
      // src/Api/Hosting/Drain.cs: the delay, then Kestrel's drain, both within the timeout.
      drain: {
        delay: { env: 'Shutdown__DrainDelaySeconds', unit: 's' },
        timeout: { env: 'Shutdown__TimeoutSeconds', unit: 's' },
      },
      // Below 1 CPU of limit the pool starts with one worker thread (docs/thread-pool.md).
      threadPool: { env: 'Runtime__MinWorkerThreads', minBelowOneCpu: 4 },
    },
    migrator: { job: 'dotnet-api-migrator' },
    stateful: ['StatefulSet/sqlserver'],
    // SQL Server writes outside its data folder.
    writableRoot: ['sqlserver'],
    // Images only the Kubernetes files use (the compose file has no counterpart).
    k8sOnlyImages: ['registry.k8s.io/kubectl:v1.36.0'],
    copies: {
      'k8s/base/seed/products.json': '../database/products/products.json',
    },
    swarm: { secrets: ['mssql_sa_password', 'db_app_password'] },
  },
};

// Values a committed Secret may hold: the .env.example style placeholders.
export const PLACEHOLDER = /change-?me|replace-?me|placeholder/i;
