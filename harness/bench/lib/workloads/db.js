// A database read: a page of rows from the app's own store (MongoDB for Node, SQL Server or
// PostgreSQL for .NET); its cells start the store beside the app.
const listIn = (b) => (Array.isArray(b) ? b : b !== null && typeof b === 'object' && (b.items ?? b.products ?? b.data));

export default {
  name: 'db',
  order: 3,
  title: 'database read',
  params: {},
  connections: 64,
  latencyRatePerCpu: 200,
  // The full run only: the store takes a minute of warm-up for .NET, and Node's needs MongoDB.
  defaultRun: 'no',
  database: true,
  check: (b) => Array.isArray(listIn(b)) && listIn(b).length > 0,
  shape: 'a non-empty JSON list (or {items|products|data: [...]})',
};
