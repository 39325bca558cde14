/** Said wherever work waits for a worker (mail, CSV files, payments) while none is running. */
export function NoWorkerAlert({ waiting }: { waiting: string }) {
  return (
    <div className="alert" role="alert">
      <p>処理担当（ワーカー）が動いていません。</p>
      <p className="small">{waiting}ワーカーが動き出すと処理が始まります。続くときはシステムの担当者に連絡してください。</p>
    </div>
  );
}
