// The contact module's public surface: the お問い合わせ form and its two mails.
import type { AppModule } from '../../http/context.ts';
import { ContactMessage } from './entities/contact-message.entity.ts';
import { onContactReceived } from './mails.ts';
import { contactRoutes } from './routes.ts';

/** Tests sign a form opened seconds ago, as a person's browser would hold it. */
export { issueFormToken } from './form-token.ts';

export const contact = {
  name: 'contact',
  api: contactRoutes,
  entities: [ContactMessage],
  handlers: { ContactReceived: onContactReceived },
} satisfies AppModule;
