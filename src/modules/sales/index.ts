// The sales module's public surface.

export { COMPLETE, PUBLISH, SALE_STATUS } from './entities/sale.entity.ts';
export { type SalesFilter, salesWhere } from './service.ts';
