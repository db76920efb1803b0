//! `Lazy<T>`: a subcommand's arguments whose clap definition is built only when that
//! subcommand is the one being parsed (clap's `Command::defer`).
//!
//! The derived parser otherwise builds every subcommand's arguments, help text included,
//! on every start: for `simdcrypt sum FILE` that was most of the process's own work on a
//! small file, more than the hashing (callgrind; docs/tuning-history.md). Deferring
//! changes nothing a user sees: the subcommand's name, `about` and after-help come from its
//! variant in main.rs as before, and its arguments are added, by the same derived
//! `augment_args`, before clap parses or prints anything of that subcommand
//! (the unit test below checks each subcommand's texts and arguments once built).

use std::ops::Deref;

use clap::builder::{Resettable, StyledStr};
use clap::{ArgMatches, Args, Command, FromArgMatches};

/// `T`'s arguments, added to its subcommand only when clap builds that subcommand.
#[derive(Debug)]
pub struct Lazy<T>(pub T);

impl<T> Deref for Lazy<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Args> Args for Lazy<T> {
    fn augment_args(cmd: Command) -> Command {
        cmd.defer(keeping_about::<T, false>)
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        cmd.defer(keeping_about::<T, true>)
    }
}

/// `T`'s arguments added to `cmd`, whose `about` texts stay those of the variant: the
/// derived `augment_args` also sets them from `T`'s own doc comment, which the eager order
/// (arguments first, then the variant's texts) used to overwrite.
fn keeping_about<T: Args, const FOR_UPDATE: bool>(cmd: Command) -> Command {
    let about = cmd.get_about().cloned();
    let long_about = cmd.get_long_about().cloned();
    let cmd = if FOR_UPDATE { T::augment_args_for_update(cmd) } else { T::augment_args(cmd) };
    let reset = |text: Option<StyledStr>| text.map_or(Resettable::Reset, Resettable::Value);
    cmd.about(reset(about)).long_about(reset(long_about))
}

impl<T: FromArgMatches> FromArgMatches for Lazy<T> {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches(matches).map(Lazy)
    }

    fn from_arg_matches_mut(matches: &mut ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches_mut(matches).map(Lazy)
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches(matches)
    }

    fn update_from_arg_matches_mut(&mut self, matches: &mut ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches_mut(matches)
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// Every subcommand, once built, has its arguments and still the variant's texts (the
    /// ones the top-level help lists), not those of its arguments struct.
    #[test]
    fn deferred_subcommands_keep_their_texts_and_get_their_arguments() {
        let mut cli = crate::Cli::command();
        let before: Vec<_> = cli
            .get_subcommands()
            .map(|s| (s.get_name().to_owned(), s.get_about().cloned(), s.get_long_about().cloned()))
            .collect();
        assert!(before.iter().any(|(name, ..)| name == "sum"));
        // Nothing of a subcommand's arguments exists until clap builds it.
        let sum = cli.find_subcommand("sum").unwrap();
        assert_eq!(sum.get_arguments().count(), 0, "sum's arguments were built eagerly");
        cli.build();
        cli.clone().debug_assert();
        for (name, about, long_about) in before {
            let sub = cli.find_subcommand(&name).unwrap();
            assert!(about.is_some(), "{name} has no about text");
            assert_eq!(sub.get_about(), about.as_ref(), "{name}'s about changed when built");
            assert_eq!(sub.get_long_about(), long_about.as_ref(), "{name}'s long about changed when built");
            assert!(sub.get_arguments().any(|a| a.get_id() != "help"), "{name} has no arguments");
            let help = sub.clone().render_long_help().to_string();
            assert!(help.starts_with(&about.unwrap().to_string()), "{name}'s help:\n{help}");
        }
    }
}
