import useSWR from 'swr';
import { type Answer, api, type RequestBody } from '../../lib/api';

/** GET /api/contact/form: the signed time the form was opened, the categories, the message's limit. */
export const useContactForm = () =>
  useSWR<Answer<'/api/contact/form'>>('/api/contact/form', { revalidateOnFocus: false, revalidateIfStale: false });

export const sendContact = (body: RequestBody<'/api/contact', 'post'>) =>
  api<Answer<'/api/contact', 'post'>>('/api/contact', { method: 'POST', body });

/** The server checks the choice (422 for anything else). */
export type ContactCategory = RequestBody<'/api/contact', 'post'>['category'];
