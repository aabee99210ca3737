//! Access logs: opening plain or gzip files, cutting them into line-aligned chunks, and parsing lines in the configured format (SPEC §1).
