// Weka oracle for seminaive's structure learners (TAN): thin wrapper around Weka 3.6's API.
//
// Build (do not commit the .class files):
//   javac -cp /usr/share/java/weka.jar -d /tmp/oracle tests/oracle/WekaStructure.java
//
// Usage:
//   java -cp /usr/share/java/weka.jar:/tmp/oracle WekaStructure TRAIN.arff TEST.arff SCORE ALPHA
//       Trains weka.classifiers.bayes.BayesNet with the TAN search
//       (weka.classifiers.bayes.net.search.local.TAN, score type SCORE = BAYES, BDeu, MDL,
//       ENTROPY or AIC) and SimpleEstimator(alpha = ALPHA) on TRAIN (class = last
//       attribute) and prints JSON {"parents", "distributions"}: parents[i] = attribute
//       parents of attribute i (indices among the non-class attributes), distributions[r] =
//       distributionForInstance(test instance r).

import java.io.BufferedReader;
import java.io.FileReader;

import weka.classifiers.bayes.BayesNet;
import weka.classifiers.bayes.net.ParentSet;
import weka.classifiers.bayes.net.estimate.SimpleEstimator;
import weka.classifiers.bayes.net.search.local.LocalScoreSearchAlgorithm;
import weka.classifiers.bayes.net.search.local.TAN;
import weka.core.Instances;
import weka.core.SelectedTag;
import weka.core.Tag;

public class WekaStructure {

  static Instances load(String path) throws Exception {
    BufferedReader r = new BufferedReader(new FileReader(path));
    Instances data = new Instances(r);
    r.close();
    data.setClassIndex(data.numAttributes() - 1);
    return data;
  }

  public static void main(String[] args) throws Exception {
    Instances train = load(args[0]);
    Instances test = load(args[1]);
    TAN search = new TAN();
    int scoreId = -1;
    for (Tag t : LocalScoreSearchAlgorithm.TAGS_SCORE_TYPE)
      if (t.getReadable().equals(args[2])) scoreId = t.getID();
    if (scoreId < 0) throw new IllegalArgumentException("unknown score " + args[2]);
    search.setScoreType(new SelectedTag(scoreId, LocalScoreSearchAlgorithm.TAGS_SCORE_TYPE));
    SimpleEstimator estimator = new SimpleEstimator();
    estimator.setAlpha(Double.parseDouble(args[3]));
    BayesNet net = new BayesNet();
    net.setSearchAlgorithm(search);
    net.setEstimator(estimator);
    net.buildClassifier(train);

    int classIndex = train.classIndex();
    StringBuilder out = new StringBuilder("{\"parents\": [");
    boolean first = true;
    for (int i = 0; i < train.numAttributes(); i++) {
      if (i == classIndex) continue;
      out.append(first ? "" : ", ").append('[');
      first = false;
      ParentSet ps = net.getParentSet(i);
      boolean firstParent = true;
      for (int j = 0; j < ps.getNrOfParents(); j++) {
        int p = ps.getParent(j);
        if (p == classIndex) continue;
        out.append(firstParent ? "" : ", ").append(p < classIndex ? p : p - 1);
        firstParent = false;
      }
      out.append(']');
    }
    out.append("], \"distributions\": [");
    for (int r = 0; r < test.numInstances(); r++) {
      double[] d = net.distributionForInstance(test.instance(r));
      out.append(r > 0 ? ", " : "").append('[');
      for (int c = 0; c < d.length; c++) out.append(c > 0 ? ", " : "").append(Double.toString(d[c]));
      out.append(']');
    }
    out.append("]}");
    System.out.println(out);
  }
}
