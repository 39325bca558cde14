// The licences module's public surface: what the host and other modules may use.
import type { AppModule } from '../../http/context.ts';
import { License, LicensePicture } from './entities/license.entity.ts';
import { LICENSE_UPLOAD_LIMIT, LICENSE_UPLOAD_PATH, licenseRoutes, uploadRoutes } from './routes.ts';

export { createLicense } from './admin-licenses.ts';
export { licenseAuditLabels } from './audit-labels.ts';
export {
  findLicenseForSale,
  LICENSE_NOT_FOUND,
  noteCheckoutStarted,
  notOnSaleMessage,
  periodState,
  SOLD_OUT_MESSAGE,
} from './catalogue.ts';
export { licenseNames } from './names.ts';

/** Demo licences for an empty development database: loaded only when used, never in production. */
export const loadDemo = () => import('./demo.ts');

export const licenses = {
  name: 'licenses',
  api: licenseRoutes,
  root: uploadRoutes,
  entities: [License, LicensePicture],
  uploads: [{ path: LICENSE_UPLOAD_PATH, maxBytes: LICENSE_UPLOAD_LIMIT }],
} satisfies AppModule;
