// `npm run events:map` writes docs/events.md: every event with its queues, its handler file and the
// events that handler records, and the purchase, export and refund flows drawn through them, from
// src/events/contracts.ts, the handler map (workers/handlers.ts, the modules' `handlers`) and the
// call graph of the code (read with oxc, Vite's parser). tests/unit/events-map.test.ts fails when the
// file is stale.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type EventName, eventNames, eventRoutes } from '../src/events/contracts.ts';
import { type Binding, CallGraph, type Node, nameOf, nameOrNull, walk } from './call-graph.ts';

/** The platform (a library to the flows' reader) and the entities (the data model): listed, not counted. */
const PLATFORM = /^src\/(lib|config|db|http|events|jobs|storage)\//;
const ENTITY = /\.entity\.ts$/;

const HANDLER_MAP = 'workers/handlers.ts';

/** The object a declaration holds (through `satisfies`/`as`), if it is an object literal. */
function objectOf(node: Node | undefined): Node | undefined {
  let value = node?.type === 'VariableDeclarator' ? (node.init as Node | undefined) : node;
  while (value && (value.type === 'TSSatisfiesExpression' || value.type === 'TSAsExpression')) value = value.expression as Node;
  return value?.type === 'ObjectExpression' ? value : undefined;
}

const propertiesOf = (object: Node | undefined) =>
  ((object?.properties as Node[] | undefined) ?? []).filter((p) => p.type === 'Property');
const keyOf = (property: Node) => nameOf(property.key as Node);

/** A module's `handlers: { Event: onEvent }`, each handler where it is declared. */
function moduleHandlers(graph: CallGraph, from: string, moduleName: string): Map<string, Binding> {
  const found = new Map<string, Binding>();
  const module = graph.resolve(from, moduleName);
  if (!module) return found;
  const handlers = propertiesOf(objectOf(graph.index(module.file).declarations.get(module.name))).find(
    (p) => keyOf(p) === 'handlers',
  );
  for (const property of propertiesOf(objectOf(handlers?.value as Node))) {
    const handler = nameOrNull(property.value);
    const binding = handler ? graph.resolve(module.file, handler) : undefined;
    if (binding) found.set(keyOf(property), binding);
  }
  return found;
}

/** The compile-time handler map: each event's handlers (several run in turn), where they are declared. */
export function handlerMap(graph: CallGraph): Map<string, Binding[]> {
  const map = new Map<string, Binding[]>();
  for (const entry of (objectOf(graph.index(HANDLER_MAP).declarations.get('handlers'))?.properties as Node[]) ?? []) {
    if (entry.type === 'SpreadElement') {
      const module = nameOrNull((entry.argument as Node).object);
      if (module) for (const [event, binding] of moduleHandlers(graph, HANDLER_MAP, module)) map.set(event, [binding]);
      continue;
    }
    // `Event: inTurn(sales.handlers.Event, checkout.handlers.Event)`
    const handlers: Binding[] = [];
    walk(entry.value as Node, (node) => {
      if (node.type !== 'MemberExpression' || (node.object as Node).type !== 'MemberExpression') return;
      const inner = node.object as Node;
      const module = nameOrNull(inner.object);
      const binding = module ? moduleHandlers(graph, HANDLER_MAP, module).get(nameOf(node.property as Node)) : undefined;
      if (binding) handlers.push(binding);
    });
    map.set(keyOf(entry), handlers);
  }
  return map;
}

/** One step of a flow: a request or an event's handler, and what it calls through a port. */
interface Step {
  say: string;
  /** The diagram's name of a request step (an event step is named by its event). */
  label?: string;
  /** A route file and the service functions its handler calls (as the route file names them). */
  route?: { file: string; calls: string[] };
  event?: EventName;
  /** Port implementations the step calls (the call graph does not see through a port). */
  ports?: Binding[];
}

interface Flow {
  name: string;
  steps: Step[];
}

const WEBHOOK: Step = {
  label: 'POST /api/stripe/webhook',
  say: 'Stripe calls the webhook, `POST /api/stripe/webhook`: the event is verified and stored in the inbox',
  route: { file: 'src/modules/checkout/routes.ts', calls: ['receiveStripeEvent'] },
};

const FLOWS: Flow[] = [
  {
    name: 'Purchase (card)',
    steps: [
      {
        label: 'POST /api/licenses/stripe',
        say: '`POST /api/licenses/stripe`: a Checkout Session at Stripe for the stored price',
        route: { file: 'src/modules/checkout/routes.ts', calls: ['startCheckout'] },
      },
      WEBHOOK,
      { say: 'the inbox event is reconciled into the checkout’s state', event: 'StripeEventReceived' },
      { say: 'the sales module makes the sale', event: 'CheckoutPaid' },
      { say: 'the buyer gets the purchase e-mail', event: 'SalePaid' },
    ],
  },
  {
    name: 'Export (training-system CSV)',
    steps: [
      {
        label: 'POST /api/exports',
        say: '`POST /api/exports`: the export is recorded (202), its sales frozen for a batch',
        route: { file: 'src/modules/sales/export-routes.ts', calls: ['requestExport'] },
      },
      { say: 'a worker writes the CSV to the file store', event: 'ExportRequested' },
      {
        label: 'GET /api/exports/{id}/download',
        say: '`GET /api/exports/{id}/download`: the file, audited',
        route: { file: 'src/modules/sales/export-routes.ts', calls: ['openDownload'] },
      },
    ],
  },
  {
    name: 'Refund (back office)',
    steps: [
      {
        label: 'POST /api/sales/{id}/refund',
        say: '`POST /api/sales/{id}/refund`: decided and audited in sales, then asked of checkout (PaymentsPort.refundPayment) and so of Stripe',
        route: { file: 'src/modules/sales/refund.ts', calls: ['requestRefund'] },
        ports: [{ file: 'src/modules/checkout/stripe.ts', name: 'refundPayment' }],
      },
      { ...WEBHOOK, say: 'Stripe refunds and sends `charge.refunded` to the webhook, stored in the inbox' },
      { say: 'the inbox event becomes PaymentRefunded for the checkout', event: 'StripeEventReceived' },
      { say: 'the sales module marks the sale refunded', event: 'PaymentRefunded' },
      { say: 'the buyer gets the refund notice', event: 'SaleRefunded' },
    ],
  },
];

/** The most files of src/ (outside the platform) one of these flows may pass (issue 31). */
const MAX_FLOW_FILES = 12;

const code = (text: string) => `\`${text}\``;
const sorted = (values: Iterable<string>) => [...values].sort();

interface StepTrace {
  step: Step;
  files: Set<string>;
  records: Set<EventName>;
}

function traceFlow(graph: CallGraph, handlers: Map<string, Binding[]>, flow: Flow) {
  const steps: StepTrace[] = flow.steps.map((step) => {
    const starts: Binding[] = [...(step.ports ?? [])];
    const files = new Set<string>();
    if (step.route) {
      files.add(step.route.file);
      for (const call of step.route.calls) {
        const binding = graph.resolve(step.route.file, call);
        if (!binding) throw new Error(`${step.route.file}: ${call} not found`);
        starts.push(binding);
      }
    }
    if (step.event) {
      files.add(HANDLER_MAP);
      starts.push(...(handlers.get(step.event) ?? []));
    }
    const reached = graph.reach(starts);
    for (const file of reached.files) files.add(file);
    return { step, files, records: reached.records };
  });
  const all = new Set(steps.flatMap((s) => [...s.files]));
  const counted = sorted([...all].filter((file) => file.startsWith('src/') && !PLATFORM.test(file) && !ENTITY.test(file)));
  const platform = sorted([...all].filter((file) => PLATFORM.test(file)));
  const entities = sorted([...all].filter((file) => ENTITY.test(file)));
  return { steps, counted, platform, entities };
}

/** Where each event is recorded: the files with `recordEvent(tx, 'Name', …)`. */
function recordedIn(root: string, files: string[]): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  for (const file of files) {
    for (const match of readFileSync(join(root, file), 'utf8').matchAll(/recordEvent\(\s*\w+,\s*'(\w+)'/g)) {
      const event = match[1] as string;
      if (!found.has(event)) found.set(event, new Set());
      found.get(event)?.add(file);
    }
  }
  return found;
}

function sourceFiles(root: string, dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    if (statSync(join(root, path)).isDirectory()) return sourceFiles(root, path);
    return /\.ts$/.test(name) && !/\.d\.ts$/.test(name) ? [path] : [];
  });
}

const where = (b: Binding) => `${code(b.file)} (${code(b.name)})`;

/** docs/events.md as the code says it today. */
export function renderEventsMap(root: string): string {
  const graph = new CallGraph(root);
  const handlers = handlerMap(graph);
  const recorded = recordedIn(root, sourceFiles(root, 'src').sort());
  const lines = [
    '# Events and the flows through them',
    '',
    '<!-- Written by `npm run events:map` (scripts/events-map.ts) from src/events/contracts.ts, the handler map',
    '     (workers/handlers.ts) and the code; tests/unit/events-map.test.ts fails when it is stale. Do not edit. -->',
    '',
    'An event is recorded with `recordEvent(tx, name, payload)` in the transaction that makes the change',
    '(src/events/outbox.ts); the outbox relay (src/events/relay.ts) puts it on the queues its route names',
    '(`eventRoutes` in src/events/contracts.ts); a worker (workers/event-worker.ts) runs the handler the',
    'handler map gives it (workers/handlers.ts). An event no queue carries is only marked published.',
    '',
    '## Events',
    '',
    '| event | queues | recorded in | handler | the handler records |',
    '|---|---|---|---|---|',
  ];
  for (const event of eventNames) {
    const queues: readonly string[] = eventRoutes[event];
    const own = handlers.get(event) ?? [];
    const records = graph.reach(own).records;
    lines.push(
      `| ${event} | ${queues.join(', ') || '—'} | ${
        sorted(recorded.get(event) ?? [])
          .map(code)
          .join('<br>') || '—'
      } | ` + `${own.map(where).join('<br>') || '—'} | ${sorted(records).join(', ') || '—'} |`,
    );
  }
  lines.push(
    '',
    '## Flows',
    '',
    'Each flow is traced through the call graph from its requests and its events’ handlers. It counts the',
    'files of `src/` a reader passes, the platform (`src/{lib,config,db,http,events,jobs,storage}`, a library',
    `to this reader) and the entities (the data model) listed apart; the goal is at most ${MAX_FLOW_FILES} each. Calls`,
    'through a port (PaymentsPort) are followed to their implementation in checkout.',
  );
  for (const flow of FLOWS) {
    const traced = traceFlow(graph, handlers, flow);
    lines.push('', `### ${flow.name}: ${traced.counted.length} files`, '', ...diagram(flow), '');
    traced.steps.forEach(({ step, files, records }, i) => {
      const head = step.event ? `${step.event} (${eventRoutes[step.event].join(', ')}) → ${step.say}` : step.say;
      lines.push(`${i + 1}. ${head}.`);
      const shown = sorted([...files].filter((file) => !PLATFORM.test(file) && !ENTITY.test(file)));
      lines.push(`   Files: ${shown.map(code).join(', ')}.`);
      if (records.size) lines.push(`   Records: ${sorted(records).join(', ')}.`);
    });
    lines.push('', `Files passed (${traced.counted.length}): ${traced.counted.map(code).join(', ')}.`);
    if (traced.counted.length > MAX_FLOW_FILES) {
      lines.push('', `Over the goal by ${traced.counted.length - MAX_FLOW_FILES}: see “Where the files come from” below.`);
    }
    lines.push('', `Entities read: ${traced.entities.map(code).join(', ') || '—'}.`);
    lines.push('', `Platform used: ${traced.platform.map(code).join(', ') || '—'}.`);
  }
  lines.push('', ...WHY_WIDE);
  return `${lines.join('\n')}\n`;
}

/** The flow's steps as a mermaid chart: requests and events in order. */
function diagram(flow: Flow): string[] {
  const names = flow.steps.map((step, i) => {
    const label = step.event ? `${step.event} (${eventRoutes[step.event].join(', ')})` : (step.label ?? step.say);
    return `  s${i + 1}["${label}"]`;
  });
  const arrows = flow.steps.slice(1).map((_, i) => `  s${i + 1} --> s${i + 2}`);
  return ['```mermaid', 'flowchart LR', ...names, ...arrows, '```'];
}

/** Hand-written: re-read it when the counts above change. */
const WHY_WIDE = [
  '## Where the files come from',
  '',
  'The services are split by use case (issue 31), so a flow passes the files of its use cases, not whole',
  'services:',
  '',
  '- Purchase: starting a checkout asks other modules through their `index.ts` (accounts’',
  '  `setDistribution` in `buyers.ts`, licences’ `catalogue.ts` for the stored price, sales’',
  '  `record-sale.ts` for the 409 of a licence already held); making the sale is `record-sale.ts` with its',
  '  order number; the purchase e-mail is rendered and sent by `mail/send.ts`, which reads the site',
  '  settings. `checkout/konbini.ts` is on the path because one reconcile serves card and konbini events.',
  '- Export: the export’s own folder is four files (`request.ts`, `query.ts`, `csv.ts`, `build.ts`, the',
  '  worker’s handler beside the build); the search it shares with the list is `sales-filter.ts`, which',
  '  reads members through accounts (`member-match.ts`, `buyers.ts`, `affiliations.ts`); a batch moves its',
  '  sales (`status-moves.ts`), and the request and the download are audited.',
  '- Refund: sales decides, audits and asks (`refund.ts`, route and use case), checkout refunds',
  '  (`stripe.ts`) and turns the webhook into PaymentRefunded (routes, `stripe-events.ts`, handlers,',
  '  konbini, the licences’ catalogue for the hidden-licence check), `record-sale.ts` marks the sale, and',
  '  `mail/send.ts` sends the notice.',
  '',
  'A file that serves two use cases is passed by both flows: keep a flow’s helpers in its use-case files',
  '(a new module file it calls is one more file for each flow through it).',
];

export const EVENTS_MAP = 'docs/events.md';

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const root = resolve(import.meta.dirname, '..');
  writeFileSync(join(root, EVENTS_MAP), renderEventsMap(root));
  console.log(`events:map: wrote ${EVENTS_MAP}`);
}
