//! The playground's API (`www/`): why two pages are (not) alike, and what a pattern will crawl.
