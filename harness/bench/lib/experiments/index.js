// The five published experiments, as scenarios of the plan: each measures the original's variants
// and the controls that test its explanation, interleaved in one run.
import * as composeReplicas from './compose-replicas.js';
import * as clusterVsContainers from './cluster-vs-containers.js';
import * as piLoadBalancing from './pi-loadbalancing.js';
import * as nodeScale from './node-scale.js';
import * as aspnetNginx from './aspnet-nginx.js';

export const EXPERIMENTS = Object.fromEntries(
  [composeReplicas, clusterVsContainers, piLoadBalancing, nodeScale, aspnetNginx].map((m) => [m.experiment.id, {
    title: `Published experiment: "${m.experiment.title}"`,
    description: m.experiment.claim,
    interleaved: true,
    fullOnly: true,
    experiment: m.experiment,
    build: m.build,
  }]),
);
