//! The public ids of the actions in flight.
//!
//! The machines mint internal ids, some of which never come out (a shadow
//! that is dropped takes its ids with it); `publish` gives each action
//! that does come out the next public id, and keeps the pair until the
//! action ends, with whether it has streamed argument pieces.
//!
//! Nearly always one action is in flight at a time, so the first is kept
//! in a slot of its own and only more go to a map: a block's start and end
//! then cost a compare each, not a map's insert and remove (about 300
//! instructions a block, measured with callgrind on a response of small
//! blocks; `examples/whole_parse tiny`). The map keeps the worst case (a
//! block of many actions, all started before any ends) logarithmic; it is
//! boxed, made when first needed, so the slot costs a parser 8 bytes more
//! than the map alone did (a parser's size is a stream's size in flight).

use std::collections::BTreeMap;

use crate::event::ActionId;

/// Internal id → (public id, streamed), for actions started and not ended.
#[derive(Debug, Default)]
pub(super) struct PublicIds {
    one: Option<(u64, (ActionId, bool))>,
    // Boxed on purpose: 8 bytes in every parser instead of the map's 24,
    // for a map most parsers never make (see the module's comment).
    #[allow(clippy::box_collection)]
    more: Option<Box<BTreeMap<u64, (ActionId, bool)>>>,
}

impl PublicIds {
    /// Notes action `id`'s public id, not streamed yet.
    pub fn insert(&mut self, id: u64, public: ActionId) {
        match &mut self.one {
            Some((k, v)) if *k == id => *v = (public, false),
            Some(_) => {
                self.more
                    .get_or_insert_with(Box::default)
                    .insert(id, (public, false));
            }
            None => self.one = Some((id, (public, false))),
        }
    }

    /// Action `id`'s public id and streamed mark, if it is in flight.
    pub fn get_mut(&mut self, id: u64) -> Option<&mut (ActionId, bool)> {
        match &mut self.one {
            Some((k, v)) if *k == id => Some(v),
            _ => self.more.as_mut()?.get_mut(&id),
        }
    }

    /// Ends action `id`: its public id and streamed mark, if it was in
    /// flight.
    pub fn remove(&mut self, id: u64) -> Option<(ActionId, bool)> {
        match self.one {
            Some((k, v)) if k == id => {
                self.one = None;
                Some(v)
            }
            _ => self.more.as_mut()?.remove(&id),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The slot and the map together behave as one map, whatever the order
    /// of starts and ends.
    #[test]
    fn the_slot_and_the_map_are_one_map() {
        let mut ids = PublicIds::default();
        let mut model = BTreeMap::new();
        // Starts and ends interleaved: in order, out of order, many at once.
        let script: &[(bool, u64)] = &[
            (true, 1),
            (false, 1),
            (true, 2),
            (true, 3),
            (true, 4),
            (false, 3),
            (true, 5),
            (false, 2),
            (false, 5),
            (true, 6),
            (false, 4),
            (false, 6),
            (false, 7),
        ];
        for (n, &(start, id)) in script.iter().enumerate() {
            if start {
                ids.insert(id, ActionId(n as u64));
                model.insert(id, (ActionId(n as u64), false));
                if let Some(v) = ids.get_mut(id) {
                    v.1 = id % 2 == 0;
                }
                if let Some(v) = model.get_mut(&id) {
                    v.1 = id % 2 == 0;
                }
            } else {
                assert_eq!(ids.remove(id), model.remove(&id), "ending {id}");
            }
            for k in 0..8 {
                assert_eq!(ids.get_mut(k).copied(), model.get(&k).copied(), "{k}");
            }
        }
    }
}
