import { describe, expect, it } from 'vitest';
import { loginFor, safeNext } from '../../web/src/features/auth/return-to.ts';

describe('return-to after sign-in (safeNext)', () => {
  it('follows a path of this site, with its query and fragment', () => {
    expect(safeNext('/licenses/2')).toBe('/licenses/2');
    expect(safeNext('/admin/users?name=%E5%B1%B1%E7%94%B0&page=2')).toBe('/admin/users?name=%E5%B1%B1%E7%94%B0&page=2');
    expect(safeNext('/licenses/2/procedure#terms')).toBe('/licenses/2/procedure#terms');
    expect(safeNext('/admin/users?q=100%')).toBe('/admin/users?q=100%');
  });

  it.each([
    null,
    '',
    'licenses/2',
    '//evil.example',
    '//evil.example/licenses/2',
    'https://evil.example/',
    'HTTPS://evil.example',
    'javascript:alert(1)',
    '/\\evil.example',
    '\\\\evil.example',
    '/\t/evil.example',
    '/\n/evil.example',
    '%2F%2Fevil.example',
    '/%2F/evil.example',
    '/%2f%2fevil.example',
    '/%5Cevil.example',
    '/%252F%252Fevil.example',
    '/%25252F/evil.example',
    // Paths that become //host only once their dot-segments are resolved (V3.7.2).
    '/.//evil.example/x',
    '/././/evil.example',
    '/x/..//evil.example',
    '/x/../..//evil.example',
    '/%2e%2e//evil.example',
    '/%2E%2E//evil.example',
    '/%2e//evil.example',
    '/x/%2e%2e//evil.example',
    '/x/.%2e//evil.example',
    '/%252e%252e//evil.example',
    '/x/..%2f%2fevil.example',
    '/./\\evil.example',
    '/login',
    '/login?next=/licenses/2',
    '/logout',
    '/users/registration',
    `/${'a'.repeat(2001)}`,
  ])('refuses %j (home instead)', (next) => {
    expect(safeNext(next)).toBeNull();
  });

  it('resolves harmless dot-segments and follows the result', () => {
    expect(safeNext('/licenses/./2')).toBe('/licenses/2');
    expect(safeNext('/admin/../licenses')).toBe('/licenses');
  });

  it('builds the sign-in address a guard sends to', () => {
    expect(loginFor('/licenses/2')).toBe('/login?next=%2Flicenses%2F2');
    expect(loginFor('/')).toBe('/login');
    expect(loginFor('//evil.example')).toBe('/login');
  });
});
