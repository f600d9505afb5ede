/** scripts/bundle.mjs: the server in one file. */
export declare const BUNDLE: string;
export declare function bundleServer(outfile?: string): Promise<void>;
