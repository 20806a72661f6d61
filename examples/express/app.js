// The app, as express-generator writes app.js: the routes, exported for bin/www to serve.
const express = require('express');

const app = express();
app.use(express.json());

app.get('/', (req, res) => {
  res.json({ hello: 'world' });
});

app.get('/health', (req, res) => {
  res.json({ status: 'ok' });
});

module.exports = app;
