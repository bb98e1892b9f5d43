//! The groupings a user reviews a learned crawler's targets by: the kinds their main headings
//! name ([`heading`]), the languages they declare ([`language`]) and the directories they sit in
//! ([`directory`]); each proposes what to leave out and takes the user's verdicts. Besides them,
//! the targets the page-kind model calls listing pages ([`listing`]).
pub mod directory;
pub mod heading;
pub mod language;
pub mod listing;
