// node-replicas drained: drain.js's stop, scale-down, replace and kill under GET + POST load, on its
// own compose.yaml (it keeps nothing: no store to read back).
import { engine } from './helpers.js';
import { drainTests } from './drain.js';

drainTests('node-replicas', await engine(), 'node-replicas: stop, scale down, replace and kill under GET + POST load');
