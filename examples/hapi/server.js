// hapi's getting-started server: routes, then server.start(); host and port from the environment.
const Hapi = require('@hapi/hapi');

const init = async () => {
  const server = Hapi.server({ port: Number(process.env.PORT || 3000), host: process.env.HOST });
  server.route({ method: 'GET', path: '/', handler: () => ({ hello: 'world' }) });
  server.route({ method: 'GET', path: '/health', handler: () => ({ status: 'ok' }) });
  await server.start();
  console.log('Server running on %s', server.info.uri);
  process.on('SIGTERM', () => server.stop({ timeout: 5000 }).then(() => process.exit(0)));
};

process.on('unhandledRejection', (err) => {
  console.log(err);
  process.exit(1);
});

init();
