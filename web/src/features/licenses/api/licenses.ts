import useSWR from 'swr';

export interface LicensePicture {
  filename: string;
  url: string;
  thumbnail_url: string;
  width: number;
  height: number;
  original_name: string | null;
}

export interface License {
  id: number;
  name: string;
  description: string;
  price: number;
  published: boolean;
  created_at: string;
  updated_at: string;
  picture_directory: string;
  pictures_pathes: string[];
  pictures: LicensePicture[];
}

export interface LicensePage {
  licenses: License[];
  total: number;
  page: number;
  per_page: number;
}

export function useLicenses(page: number, perPage = 20, sort = 'id') {
  return useSWR<LicensePage>(`/api/licenses?page=${page}&per_page=${perPage}&sort=${encodeURIComponent(sort)}`);
}

export function useLicense(id: string | undefined) {
  return useSWR<{ license: License }>(id ? `/api/licenses/${id}` : null);
}
