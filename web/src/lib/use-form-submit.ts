import { useState } from 'react';
import { ApiError, type FieldErrors } from './api';

/** Busy flag, message and field errors of one form submission (422 → first message per field). */
export function useFormSubmit() {
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});

  async function run<T>(work: () => Promise<T>): Promise<T | undefined> {
    if (busy) return undefined;
    setBusy(true);
    setMessage('');
    setErrors({});
    try {
      return await work();
    } catch (error) {
      if (error instanceof ApiError) {
        setMessage(error.message);
        setErrors(error.errors);
      } else {
        setMessage('エラーが発生しました。時間をおいて再度お試しください。');
      }
      return undefined;
    } finally {
      setBusy(false);
    }
  }

  return { busy, message, errors, run };
}
