// Koa and @koa/router as their READMEs write them; the port from PORT, the mode from NODE_ENV.
const Koa = require('koa');
const { Router } = require('@koa/router');

const app = new Koa();
const router = new Router();

router.get('/', (ctx) => {
  ctx.body = { hello: 'world', env: app.env };
});
router.get('/health', (ctx) => {
  ctx.body = { status: 'ok' };
});

app.use(router.routes()).use(router.allowedMethods());
const server = app.listen(Number(process.env.PORT || 3000));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
