import * as v from 'valibot';
import { rules } from '../../http/validate.ts';

export const LoginInput = v.object({
  email: rules.email(),
  password: v.pipe(
    v.string('パスワードを入力してください。'),
    v.minLength(1, 'パスワードを入力してください。'),
    v.maxLength(1000),
  ),
});
