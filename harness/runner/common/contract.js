// The runner's contract: what each backend (processes/, docker/) offers, so that make, the bench,
// the drills and the tests hold a `Runner` whatever runs the topology. Types only (JSDoc, checked
// by tsc --checkJs in make test's static suite); runner/index.js hands out the implementations.
export {};

/** @typedef {'docker' | 'processes'} Engine */
/** @typedef {(line: string) => void} Log */
/** @typedef {{ runDir?: string }} RunAt */
/** @typedef {{ runDir?: string, service: string, index: number | string }} InstanceAt */

/**
 * What `up` takes: the knobs reach compose.yaml through interpolation (`env`), as with `docker compose`.
 * @typedef {object} UpOptions
 * @property {string} sample        a sample folder (name or path) with a compose.yaml
 * @property {string} [runDir]      the run folder (default <repo>/.run): one run per folder
 * @property {Record<string, string>} [env]  interpolation variables: REPLICAS, WORKERS, CPUS, LB, HTTP_PORT, …
 * @property {string[]} [services]  only these services (and what they depend on)
 * @property {boolean} [noDeps]     with `services`: not their dependencies
 * @property {boolean} [build]      false: no build step (the caller has built once already)
 * @property {string} [cpuset]      CPUs every process or container of the run is pinned to ("1", "2-5")
 * @property {number} [budget]      CPUs: one quota over the whole run
 * @property {boolean} [priority]   the highest CPU weight, against other load on the machine
 * @property {string[]} [files]     docker: more compose files of the sample to add
 * @property {Log} [log]            progress lines
 */

/**
 * The running topology as a backend records it: sample, url, phase, cpuLimits, isolation and, per
 * service, its instances ({ index, name, pid, url, … }). `stale` where the processes backend's
 * supervisor is gone and this is its last snapshot.
 * @typedef {Record<string, any>} RunState
 */

/**
 * One row of `ps`; a service the processes backend skips has one row with '-' for index, pid, restarts.
 * @typedef {object} PsRow
 * @property {string} service
 * @property {number} index
 * @property {string} [name]
 * @property {number} pid
 * @property {string} url
 * @property {string} status      running | restarting | exited | completed | skipped (docker: the container's)
 * @property {string} [exit]      the last exit code or signal
 * @property {number} restarts
 * @property {number[]} [children]
 * @property {string} [id]        docker: the container's short id
 * @property {boolean} [stale]
 */

/** An instance as an operation on it returns it: at least its name and pid. @typedef {Record<string, any>} Instance */

/**
 * @typedef {object} DownResult
 * @property {string} [sample]
 * @property {number} stopped          processes or containers that were running
 * @property {string[]} [cgroupsLeft]
 * @property {string[]} [left]         docker: objects of the project still there
 * @property {boolean} [engineStopped] docker: the private engine was stopped too
 */

/**
 * @typedef {object} ReloadResult
 * @property {string} sample
 * @property {string} service
 * @property {string} strategy   proxy | signal | nginx | restart
 * @property {boolean} zeroDowntime
 * @property {{ instance: string, from: object, to: object, startedAt: number, tookMs: number }[]} steps
 * @property {number} tookMs
 */

/**
 * @typedef {object} ScaleResult
 * @property {string} sample
 * @property {string} service
 * @property {number} from
 * @property {number} to
 * @property {string[]} added
 * @property {string[]} removed
 * @property {number} tookMs
 */

/**
 * @typedef {object} MemoryUse
 * @property {number} pssMiB
 * @property {number} anonMiB
 * @property {number} rssMiB
 * @property {number} processes
 * @property {number} threads
 * @property {{ voluntary: number, involuntary: number }} contextSwitches
 */

/**
 * @typedef {object} Usage
 * @property {string} source   how it was read (cgroup accounting, proc utime+stime, docker stats)
 * @property {number | null} cpuNs
 * @property {{ service: string, index: number, name: string, cpuNs: number | null, throttling: object | null,
 *   memory: MemoryUse }[]} instances
 * @property {object | null} throttling
 * @property {MemoryUse} memory
 */

/**
 * `place`: a running run moved, without a restart. Each optional; what is given changes, the rest
 * stays. Bad input (CPUs the machine does not let us use, a budget larger than the cpuset or below a
 * quota per instance, a value that is not a positive number of CPUs, an unknown service) throws a
 * PlacementError (common/errors.js, one line) and changes nothing.
 * @typedef {object} PlaceOptions
 * @property {string} [runDir]
 * @property {string} [cpuset]     the CPUs every process or container of the run is pinned to from now on ("1", "0-1")
 * @property {number | string} [budget]   CPUs: the run's one quota over all of it
 * @property {Record<string, number | string>} [cpus]   a service's quota per instance, in CPUs
 * @property {Log} [log]            one line saying what changed
 */

/** @typedef {import('./placement.js').Placement} Placement  the placement now: { cpuset, budget, cpus } */

/** @typedef {{ code: number, stdout: string, stderr: string }} ExecResult */

/**
 * `exec`: argv run in the context of one instance of a service. `{port}` in argv is the service's
 * port as seen where the command runs: the container's own port on Docker, the instance's loopback
 * port on the processes engine.
 * @typedef {object} ExecOptions
 * @property {string} [runDir]
 * @property {string} service
 * @property {number} [index]      default 1
 * @property {string[]} argv
 * @property {number} [timeoutMs]  default 60 s
 */

/** @typedef {{ host: string | null, private: boolean, version: string }} EngineInfo */

/**
 * Where the Docker backend gets an engine when none answers (runner/index.js gives it the private
 * daemon of harness/docker-engine, a set-up tool).
 * @typedef {object} EngineProvider
 * @property {() => string | null} unavailable   why none can be started here, or null
 * @property {() => string | null} running       the host of the provided engine if it runs, else null
 * @property {(options: { log: Log }) => Promise<string>} start   starts it; returns its host
 * @property {() => void} prepare                what the provided engine needs once per process
 * @property {() => Promise<boolean>} stop       stops it (false: it did not run)
 * @property {string} name                       for the line naming the engine
 */

/**
 * The operations every backend offers.
 * @typedef {object} Runner
 * @property {Engine} engine
 * @property {() => boolean} available   whether it can run here without starting anything
 * @property {(runDir: string) => boolean} hasRun   whether a run of this backend is in runDir
 * @property {(options: UpOptions) => Promise<RunState>} up   starts a sample; resolves once it is healthy
 * @property {(options?: RunAt & { engine?: boolean }) => Promise<DownResult>} down   leaves nothing running
 *   (docker, `engine: true`: the private engine too)
 * @property {(options?: RunAt) => Promise<PsRow[]>} ps
 * @property {(runDir?: string) => Promise<RunState | undefined>} readState   undefined: nothing runs there
 * @property {(options: InstanceAt & { signal?: string | number }) => Promise<Instance>} signal
 *   a signal to an instance's process: to its restart policy a crash or an exit
 * @property {(options: InstanceAt) => Promise<Instance>} killHeld   down for good, as `docker kill`
 * @property {(options: InstanceAt) => Promise<Instance>} restart   on purpose, then healthy again
 * @property {(options: RunAt & { sample?: string, service?: string, log?: Log }) => Promise<ReloadResult>} reload
 * @property {(options: RunAt & { sample?: string, service?: string, replicas?: number | string, log?: Log })
 *   => Promise<ScaleResult>} scale
 * @property {(options: PlaceOptions) => Promise<Placement>} place   the run moved to other CPUs, another budget,
 *   other quotas per instance, while it runs; instances started later (restart, scale, reload) get them too
 * @property {(options?: RunAt) => Promise<Usage>} usage   CPU time, throttling and memory now (CPU time: cumulative,
 *   across a place too)
 * @property {(options: InstanceAt) => Promise<{ read: () => Promise<string> }>} logReader   what it logs from now on
 * @property {(options: InstanceAt) => Promise<number[]>} workerPids   the processes its main program started
 * @property {(options: InstanceAt) => Promise<boolean>} isServing   one health check, on its port now
 * @property {(options: InstanceAt & { notPid?: number, timeoutMs?: number })
 *   => Promise<{ pid: number, healthyAt: number, inRotationAt: number }>} waitServing
 *   until an instance that died serves again (behind nginx: nginx sends to it again)
 * @property {(options: ExecOptions) => Promise<ExecResult>} exec
 * @property {(options?: { log?: Log }) => Promise<EngineInfo>} [ensureEngine]   docker: an engine to run on
 * @property {() => EngineInfo | null} [runningEngine]   docker: the engine that answers, if any
 * @property {() => Promise<boolean>} [stopPrivateEngine]   docker: stops the provided engine if it runs
 */
