// The app as a Fastify plugin, the way fastify-cli's generated app.js exports it (fastify, opts);
// `fastify start` reads PORT and serves it.
module.exports = async function app(fastify, _opts) {
  fastify.get('/', async () => ({ hello: 'world' }));
  fastify.get('/health', async () => ({ status: 'ok' }));
};
