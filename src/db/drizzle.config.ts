import { defineConfig } from 'drizzle-kit';

// drizzle-kit writes flat `NNNN_name.sql` files that wrangler and the tests both read.
export default defineConfig({
  dialect: 'sqlite',
  schema: './src/db/schema/index.ts',
  out: './migrations',
});
