//! [`Few`]: a list that holds its first item inline. Most blocks hold one
//! action, and the lists kept per action of a block (their ids, their
//! results as the block ends) then cost no allocation.

/// A list whose first item is held inline; the rest go to a `Vec`, which
/// allocates only from the second item on.
#[derive(Debug, Clone)]
pub(super) struct Few<T> {
    /// `None` only while the list is empty.
    first: Option<T>,
    rest: Vec<T>,
}

impl<T> Few<T> {
    pub const fn new() -> Self {
        Few {
            first: None,
            rest: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        usize::from(self.first.is_some()) + self.rest.len()
    }

    pub fn push(&mut self, item: T) {
        if self.first.is_none() {
            self.first = Some(item);
        } else {
            self.rest.push(item);
        }
    }

    pub fn get(&self, i: usize) -> Option<&T> {
        match i {
            0 => self.first.as_ref(),
            _ => self.rest.get(i - 1),
        }
    }

    pub fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        match i {
            0 => self.first.as_mut(),
            _ => self.rest.get_mut(i - 1),
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.first.iter().chain(self.rest.iter())
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.first.iter_mut().chain(self.rest.iter_mut())
    }
}

impl<T> IntoIterator for Few<T> {
    type Item = T;
    type IntoIter = std::iter::Chain<std::option::IntoIter<T>, std::vec::IntoIter<T>>;

    fn into_iter(self) -> Self::IntoIter {
        self.first.into_iter().chain(self.rest)
    }
}

#[cfg(test)]
mod tests {
    use super::Few;

    #[test]
    fn a_list_in_order() {
        let mut few = Few::new();
        assert_eq!((few.len(), few.get(0)), (0, None));
        for i in 0..5 {
            few.push(i);
            assert_eq!(few.len(), i + 1);
        }
        assert_eq!(
            (few.get(0), few.get(4), few.get(5)),
            (Some(&0), Some(&4), None)
        );
        if let Some(x) = few.get_mut(3) {
            *x = 30;
        }
        few.iter_mut().for_each(|x| *x += 1);
        assert_eq!(few.iter().sum::<usize>(), 1 + 2 + 3 + 31 + 5);
        assert_eq!(few.into_iter().collect::<Vec<_>>(), [1, 2, 3, 31, 5]);
    }
}
