/** The bench's yardstick: a bare Hono hello-world on the same Node, in a process of its own. */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const app = new Hono().get('/', (c) => c.text('Hello'));
serve({ fetch: app.fetch, port: Number(process.env.PORT), hostname: '127.0.0.1' }, () => console.log('listening'));
